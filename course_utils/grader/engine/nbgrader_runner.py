"""Running nbgrader: in a course root, or in a scratch course root made from it.

Each nbgrader run is a process of its own, with nbgrader's own command line, rather than a
call into its Python API: each run then starts clean (nbgrader's apps keep global logging
and traitlets state), and a crash in one run cannot take the caller down with it. A run is
a fork of a fork server that has already imported nbgrader (`nbgrader_main --serve`): a
fresh process without the two seconds of imports, which every grading job would pay.
"""
from __future__ import annotations

import functools
import itertools
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from course_utils.course import Course, CourseError

# Appended to a copy of the course's config: the copy then serves the folder it lies in, with
# a gradebook of its own, whatever root or database the original names.
RELOCATED_CONFIG = '''
# ---- added by course_utils: this copy of the course's config serves the folder it is in ----
import os as _os
c.CourseDirectory.root = _os.path.dirname(_os.path.abspath(__file__))
c.CourseDirectory.db_url = "sqlite:///" + _os.path.join(c.CourseDirectory.root, "gradebook.db")
'''


LOG_TAIL_BYTES = 1 << 20   # what is read of a run's log: its end, where nbgrader says why it failed


@dataclass
class NbgraderResult:
    args: list[str]
    returncode: int | None       # None: stopped at its time limit
    log: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def timed_out(self) -> bool:
        return self.returncode is None


try:  # Linux: resolved once here, since a preexec_fn in a threaded parent must do very little
    import ctypes

    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):
    _PRCTL = None


def die_with_parent() -> None:
    """In a child: be killed (PR_SET_PDEATHSIG) when the process that started it dies."""
    if _PRCTL is not None:
        _PRCTL(1, int(signal.SIGKILL))


class ForkServer:
    """The client of `nbgrader_main --serve`: runs nbgrader as forks of one warm process.

    One per grading process, shared by its worker threads; started on first use, and again
    if it died. Each run still is a process of its own (fresh state, own process group).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._ids = itertools.count()
        self._waiting: dict[int, queue.Queue] = {}

    def _ensure_running(self) -> subprocess.Popen:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen([sys.executable, "-m", "course_utils.grader.engine.nbgrader_main", "--serve"],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=tool_environment(),
                                          preexec_fn=die_with_parent)
            threading.Thread(target=self._read, args=(self._proc,), daemon=True).start()
        return self._proc

    def _read(self, proc: subprocess.Popen) -> None:
        for line in proc.stdout:
            message = json.loads(line)
            reply = self._waiting.get(message["id"])
            if reply is not None:
                reply.put(message)
        for reply in list(self._waiting.values()):   # the server died: every run it held is lost
            reply.put({"lost": True})

    def run(self, args: list[str], cwd: str | Path, env: dict[str, str], log: str,
            timeout: float | None) -> int | None:
        """nbgrader's exit status (minus a signal that killed it); None when stopped at `timeout`."""
        replies: queue.Queue = queue.Queue()
        with self._lock:
            run_id = next(self._ids)
            self._waiting[run_id] = replies
            proc = self._ensure_running()
            request = {"id": run_id, "args": list(args), "cwd": str(cwd), "env": dict(env), "log": log}
            proc.stdin.write((json.dumps(request) + "\n").encode())
            proc.stdin.flush()
        try:
            started = replies.get()
            if "lost" in started:
                return -int(signal.SIGKILL)
            try:
                ended = replies.get(timeout=timeout)
            except queue.Empty:
                _stop(started["pid"], replies)
                return None
            return -int(signal.SIGKILL) if "lost" in ended else ended["code"]
        finally:
            self._waiting.pop(run_id, None)


_SERVER = ForkServer()


def launch(args: list[str], cwd: str | Path, env: dict[str, str], timeout: float | None = None) -> NbgraderResult:
    """Run `nbgrader ARGS` in `cwd` with `env` in a process group of its own; stop the group at `timeout`.

    A fork of the warm fork server where this platform forks (Linux, macOS); a plain
    subprocess elsewhere.
    """
    if not hasattr(os, "fork"):
        return _launch_subprocess(args, cwd, env, timeout)
    with tempfile.TemporaryDirectory(prefix="nbgrader-log-") as folder:
        log = os.path.join(folder, "nbgrader.log")
        returncode = _SERVER.run(args, cwd, env, log, timeout)
        text = read_tail(log)
    return NbgraderResult(nbgrader_command(*args), returncode, text)


def read_tail(path: str, size: int = LOG_TAIL_BYTES) -> str:
    """The last `size` bytes of the file at `path` as text ("" where there is none).

    A run's log is read with a limit: what a graded kernel prints reaches it capped
    (sandbox.output), but the grader's memory must not depend on it."""
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - size))
            return handle.read(size).decode(errors="replace")
    except OSError:
        return ""


def _launch_subprocess(args: list[str], cwd: str | Path, env: dict[str, str],
                       timeout: float | None) -> NbgraderResult:
    cmd = nbgrader_command(*args)
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, preexec_fn=die_with_parent)
    try:
        log, _ = proc.communicate(timeout=timeout)
        return NbgraderResult(cmd, proc.returncode, log)
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        log, _ = proc.communicate()
        return NbgraderResult(cmd, None, log)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _stop(pid: int, replies: queue.Queue, grace: float = 3.0) -> None:
    """Stop a run at its time limit: SIGTERM first, so that it ends what its kernels left running."""
    try:
        os.kill(pid, signal.SIGTERM)
        replies.get(timeout=grace)
    except ProcessLookupError:
        replies.get()
    except queue.Empty:
        _kill_group(pid)
        replies.get()


@functools.cache
def alembic_head() -> str:
    """The revision of nbgrader's gradebook schema, read with alembic's Python API (under 0.1 s)."""
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    return ScriptDirectory(ALEMBIC_DIR).get_current_head()


def in_process_alembic_head() -> None:
    """Make nbgrader read its gradebook schema's version in this process, once, instead of per new gradebook.

    nbgrader.api.get_alembic_version, which Gradebook() calls whenever it creates a gradebook (each
    run's template gradebooks, any fresh one), starts an `alembic heads` subprocess that spends about
    2.5 s importing alembic. The answer is a constant of the installed nbgrader, the same revision that
    command prints. The fork server calls this before it forks, so every nbgrader run inherits the answer.
    """
    import nbgrader.api

    alembic_head()
    nbgrader.api.get_alembic_version = alembic_head


def tool_environment() -> dict[str, str]:
    """The environment for nbgrader and kernels: this Python's bin/ first on PATH.

    nbgrader calls `alembic` through PATH, and kernels must be this environment's python,
    so a `course` started as `.venv/bin/course` works without activating the venv.
    """
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")])
    env.pop("NBGRADER_EXECUTION", None)
    return env


def nbgrader_command(*args: str) -> list[str]:
    """The command line that runs `nbgrader ARGS` with this Python."""
    return [sys.executable, "-m", "course_utils.grader.engine.nbgrader_main", *args]


def run_nbgrader(root: str | Path, *args: str, timeout: float | None = None) -> NbgraderResult:
    """Run `nbgrader ARGS` with `root` as the course root; return code and combined log."""
    root = Path(root)
    if not (root / "nbgrader_config.py").is_file():
        raise CourseError(f"nbgrader is not set up in {root}: nbgrader_config.py is missing there.")
    return launch([str(a) for a in args], root, tool_environment(), timeout)


def make_scratch_root(course: Course, folder: str | Path, ids: list[str]) -> Course:
    """A course root at `folder`: the course's own config, and copies of the given solutions."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    # A copy, not a reference: a scratch root stands alone (its jobs carry the text to workers elsewhere).
    (folder / "nbgrader_config.py").write_text(course.config_file.read_text() + RELOCATED_CONFIG)
    scratch = Course(folder)
    for aid in ids:
        target = scratch.solution_folder(aid)
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(course.solution(aid).parent, target,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    return scratch


def generate(course: Course, aid: str, release_dir: str | Path | None = None,
             db_url: str | None = None) -> NbgraderResult:
    """Generate the student version of `aid` (into release_dir, default the course's release folder).

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


def _tail(log: str, lines: int = 25) -> str:
    return "\n".join(log.strip().splitlines()[-lines:])
