"""Where a course lives: its root, its notebook ids, and every path nbgrader gives its files.

Shared by the grader, the QA tools and the CLI (never by the student's kernel). Paths and
the gradebook URL come from nbgrader's own `CourseDirectory`, configured by the course
root's `nbgrader_config.py`, so a course that renames a folder there is followed everywhere.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

NOTEBOOK_ID = re.compile(r"^\d\d_[a-z0-9_]+$")
CONFIG_FILE = "nbgrader_config.py"
# Written by `course publish` at the root of a student copy, which has no solutions/.
PUBLISHED_MARKER = ".course-publish.json"
# The Jupyter server extension that answers the Validate button with the course's validator.
VALIDATE_EXTENSION = "course_utils.cli.validate"
# The instructor's: the formgrader's Autograde button grades through `course autograde`.
FORMGRADER_EXTENSION = "course_utils.grader.term.formgrader"


class CourseError(Exception):
    """A problem the user can fix; the message says how. The CLI prints it without a traceback."""
    exit_code = 2


def find_root(start: str | Path | None = None) -> Path:
    """The course root: the nearest folder upwards holding nbgrader_config.py and solutions/
    (or, in a student copy made by `course publish`, PUBLISHED_MARKER)."""
    env = os.environ.get("COURSE_ROOT")
    here = Path(env or start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / CONFIG_FILE).is_file() and ((folder / "solutions").is_dir() or
                                                 (folder / PUBLISHED_MARKER).is_file()):
            return folder
    raise CourseError(
        f"No course found at or above {here}: expected a folder holding nbgrader_config.py and "
        "solutions/. Run `course` from inside the repository, or set COURSE_ROOT to it.")


def load_config(root: Path) -> Config:
    """`root`/nbgrader_config.py as traitlets reads it (what every nbgrader command there sees)."""
    from traitlets.config.loader import PyFileConfigLoader

    return PyFileConfigLoader(CONFIG_FILE, path=str(root)).load_config()


def load_coursedir(root: Path) -> CourseDirectory:
    """nbgrader's CourseDirectory as `root`/nbgrader_config.py configures it, rooted at `root`."""
    from nbgrader.coursedir import CourseDirectory

    coursedir = CourseDirectory(config=load_config(root))
    coursedir.root = str(root)
    return coursedir


@dataclass(frozen=True)
class Course:
    """A course root and nbgrader's view of it (folders, gradebook URL, course id)."""
    root: Path

    @classmethod
    def here(cls, start: str | Path | None = None) -> Course:
        return cls(find_root(start))

    @property
    def config_file(self) -> Path:
        return self.root / CONFIG_FILE

    @cached_property
    def coursedir(self) -> CourseDirectory:
        if not self.config_file.is_file():
            raise CourseError(f"nbgrader is not set up in {self.root}: {CONFIG_FILE} is missing there.")
        return load_coursedir(self.root)

    @property
    def db_url(self) -> str:
        """The gradebook's SQLAlchemy URL (nbgrader's default: SQLite at the course root)."""
        return self.coursedir.db_url

    @property
    def course_id(self) -> str:
        return self.coursedir.course_id

    def _path(self, step: str, student: str, aid: str) -> Path:
        return Path(self.coursedir.format_path(step, student, aid))

    def ids(self) -> list[str]:
        """Every notebook id, in course order (the folders of the source directory)."""
        source = self.root / self.coursedir.source_directory
        if not source.is_dir():
            raise CourseError(f"The course's source folder {source} does not exist (CourseDirectory.source_directory "
                              f"in {CONFIG_FILE}).")
        return sorted(p.name for p in source.iterdir() if p.is_dir() and NOTEBOOK_ID.match(p.name))

    def select(self, wanted: list[str] | None = None) -> list[str]:
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

    def solution_folder(self, aid: str) -> Path:
        return self._path(self.coursedir.source_directory, ".", aid)

    def solution(self, aid: str) -> Path:
        path = self.solution_folder(aid) / f"{aid}.ipynb"
        if not path.is_file():
            raise CourseError(f"Missing solution notebook {path}: each solutions/<id>/ folder holds <id>.ipynb.")
        return path

    def release(self, aid: str) -> Path:
        return self._path(self.coursedir.release_directory, ".", aid) / f"{aid}.ipynb"

    def submitted(self, student: str, aid: str) -> Path:
        """The folder of one student's submission of `aid`."""
        return self._path(self.coursedir.submitted_directory, student, aid)

    def autograded(self, student: str, aid: str) -> Path:
        return self._path(self.coursedir.autograded_directory, student, aid) / f"{aid}.ipynb"

    def feedback(self, student: str, aid: str) -> Path:
        return self._path(self.coursedir.feedback_directory, student, aid) / f"{aid}.html"

    def students(self) -> list[str]:
        """Students with a folder under the submitted directory, sorted."""
        folder = self.root / self.coursedir.submitted_directory
        if not folder.is_dir():
            return []
        return sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))

    def build(self, *parts: str) -> Path:
        """A path under build/, where the course's tools keep their working files."""
        return self.root.joinpath("build", *parts)

    def reports(self, *parts: str) -> Path:
        """A path under reports/, where grades.csv and the class's figures go."""
        return self.root.joinpath("reports", *parts)
