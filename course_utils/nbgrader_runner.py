"""Running nbgrader: in the course root, or in a scratch course root made from it.

nbgrader runs as a subprocess (`python -m nbgrader ...`) rather than through its Python
API: each run then starts clean (nbgrader's apps keep global logging and traitlets
state), and a crash in one run cannot take the caller down with it.
"""
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from course_utils import figure_audit
from course_utils.course import Course, CourseError

SCRATCH_CONFIG = '''\
# A scratch course root made by `course`: the real course's settings, another root.
c = get_config()  # noqa: F821
load_subconfig({repo_config!r})  # noqa: F821
c.CourseDirectory.root = {root!r}
c.CourseDirectory.db_url = {db_url!r}
'''


@dataclass
class NbgraderResult:
    args: list
    returncode: int
    log: str

    @property
    def ok(self):
        return self.returncode == 0


def tool_environment():
    """The environment for nbgrader and kernels: this Python's bin/ first on PATH.

    nbgrader calls `alembic` through PATH, and kernels must be this environment's python,
    so a `course` started as `.venv/bin/course` works without activating the venv.
    """
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    env.pop("NBGRADER_EXECUTION", None)
    env.pop(figure_audit.ENV, None)  # the figure audit is for the course's own runs, never grading
    return env


def run_nbgrader(root, *args, timeout=None):
    """Run `nbgrader ARGS` with `root` as the course root; return code and combined log."""
    root = Path(root)
    if not (root / "nbgrader_config.py").is_file():
        raise CourseError(f"nbgrader is not set up in {root}: nbgrader_config.py is missing there.")
    cmd = [sys.executable, "-m", "nbgrader", *map(str, args)]
    env = tool_environment()
    proc = subprocess.run(cmd, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=timeout)
    return NbgraderResult(cmd, proc.returncode, proc.stdout)


def make_scratch_root(course: Course, folder, ids):
    """A course root at `folder` with the real config and copies of the given solutions."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nbgrader_config.py").write_text(SCRATCH_CONFIG.format(
        repo_config=str(course.config_file), root=str(folder),
        db_url="sqlite:///" + str(folder / "gradebook.db")))
    for aid in ids:
        target = folder / "solutions" / aid
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(course.root / "solutions" / aid, target,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    return Course(folder)


def generate(course: Course, aid, release_dir=None, db_url=None):
    """Generate the student version of `aid` (into release_dir, default the course's notebooks/).

    nbgrader also records the assignment, its cells and points, in the gradebook
    (the course's own, or `db_url`).
    """
    args = ["generate_assignment", aid, "--force", "--create"]
    if release_dir is not None:
        args.append(f"--CourseDirectory.release_directory={release_dir}")
    if db_url is not None:
        args.append(f"--CourseDirectory.db_url={db_url}")
    result = run_nbgrader(course.root, *args)
    if not result.ok:
        raise CourseError(f"nbgrader could not generate {aid} from {course.solution(aid)}:\n"
                          + _tail(result.log))
    return result


def _tail(log, lines=25):
    return "\n".join(log.strip().splitlines()[-lines:])
