"""Where the course lives: its root, its notebook ids and the paths nbgrader uses."""
import os
import re
from dataclasses import dataclass
from pathlib import Path

NOTEBOOK_ID = re.compile(r"^\d\d_[a-z0-9_]+$")


class CourseError(Exception):
    """A problem the user can fix; the message says how. The CLI prints it without a traceback."""


def find_root(start=None):
    """The course root: the nearest folder upwards holding nbgrader_config.py and solutions/."""
    env = os.environ.get("COURSE_ROOT")
    here = Path(env or start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "nbgrader_config.py").is_file() and (folder / "solutions").is_dir():
            return folder
    raise CourseError(
        f"No course found at or above {here}: expected a folder holding nbgrader_config.py and "
        "solutions/. Run `course` from inside the repository, or set COURSE_ROOT to it.")


@dataclass(frozen=True)
class Course:
    root: Path

    @classmethod
    def here(cls, start=None):
        return cls(find_root(start))

    @property
    def config_file(self):
        return self.root / "nbgrader_config.py"

    def ids(self):
        """Every notebook id, in course order (the folders of solutions/)."""
        return sorted(p.name for p in (self.root / "solutions").iterdir()
                      if p.is_dir() and NOTEBOOK_ID.match(p.name))

    def select(self, wanted=None):
        """The ids asked for (all when none), checked: an unknown id is an error naming the known ones.

        A prefix such as `01` stands for the id that starts with it.
        """
        known = self.ids()
        if not wanted:
            return known
        chosen = []
        for want in wanted:
            matches = [aid for aid in known if aid == want or aid.startswith(want + "_") or
                       (len(want) == 2 and aid.startswith(want))]
            if len(matches) != 1:
                raise CourseError(f"Unknown notebook id {want!r}. Known ids: {', '.join(known)}.")
            chosen.append(matches[0])
        return chosen

    def solution(self, aid):
        path = self.root / "solutions" / aid / f"{aid}.ipynb"
        if not path.is_file():
            raise CourseError(f"Missing solution notebook {path}: each solutions/<id>/ folder holds <id>.ipynb.")
        return path

    def release(self, aid):
        return self.root / "notebooks" / aid / f"{aid}.ipynb"
