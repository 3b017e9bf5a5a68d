"""One grading run per course at a time: the lock every command that writes the gradebook holds.

For instructors whose term has more than one hand on it: a cron job and a TA's `course
autograde`, the formgrader's Autograde button, `course feedback`. Two runs at once would
remove each other's job folders and grade every submission twice, so each takes an
exclusive `flock` on `build/grading/lock` for as long as it runs. The file also says who
holds it (command, PID, host, start time), which a second run prints while it waits, or in
its refusal when it may not wait.

`flock` rather than a PID file: the kernel releases the lock of a process that dies, however
it dies (`kill -9` included), so a lock left by a killed run is never stale; the next run
takes it over and says whose it was. It holds across processes of one machine (and on NFS
v4, whose locks `flock` maps onto); a course folder graded from two machines at once is out
of scope, as it is for nbgrader's SQLite gradebook.
"""
from __future__ import annotations

import datetime
import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from course_utils.course import Course, CourseError


class CourseBusy(CourseError):
    """Another run holds the course's lock and this one may not wait."""
    exit_code = 75  # EX_TEMPFAIL (sysexits.h): try again later


def lock_path(course: Course) -> Path:
    return course.build("grading", "lock")


def holder(path: Path) -> dict:
    """What the lock file says of its last holder ({} when unreadable)."""
    try:
        return json.loads(path.read_text() or "{}")
    except (OSError, json.JSONDecodeError):
        return {}


def describe(info: dict) -> str:
    """'course autograde (PID 123 on host, started 2026-11-25 17:40:02 UTC)'."""
    if not info:
        return "another run"
    return (f"{info.get('command', 'a run')} (PID {info.get('pid', '?')} on {info.get('host', '?')}, "
            f"started {info.get('started', '?')})")


def _alive(info: dict) -> bool:
    """Whether the holder named in the file still runs here (a killed run's PID is gone)."""
    if info.get("host") != socket.gethostname() or not isinstance(info.get("pid"), int):
        return False
    try:
        os.kill(info["pid"], 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextmanager
def course_lock(course: Course, command: str, wait: bool = True, poll: float = 2.0,
                say: Callable[[str], object] | None = None) -> Iterator[dict]:
    """Hold the course's grading lock for the body; yields what it found of a previous holder.

    `wait`: block until the holder is done, saying once whom it waits for; else raise
    CourseBusy naming the holder. `say` prints the messages (default: stderr).
    """
    say = say or (lambda text: print(text, file=sys.stderr, flush=True))
    path = lock_path(course)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        waited = False
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                busy = describe(holder(path))
                if not wait:
                    raise CourseBusy(f"{busy} is grading this course now; try again when it has finished "
                                     f"(the lock is {path}).") from None
                if not waited:
                    say(f"waiting for {busy} to finish: one grading run at a time per course "
                        f"(the lock is {path}; Ctrl-C to stop waiting)")
                    waited = True
                time.sleep(poll)
        previous = holder(path)
        if previous and previous.get("running") and not _alive(previous):
            say(f"taking over the lock of {describe(previous)}, which ended without releasing it "
                "(killed?); its unfinished work is redone")
        mine = {"command": command, "pid": os.getpid(), "host": socket.gethostname(), "running": True,
                "started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")}
        os.ftruncate(handle, 0)
        os.pwrite(handle, json.dumps(mine).encode(), 0)
        try:
            yield previous
        finally:
            os.ftruncate(handle, 0)
            os.pwrite(handle, json.dumps({**mine, "running": False}).encode(), 0)
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        os.close(handle)
