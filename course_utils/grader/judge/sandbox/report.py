"""The job's report: what the sandbox's launcher and supervisor found, as JSON lines for the grader.

For `jobs.read_report`, which turns these lines into a row's flags and notes, and for every stage
of the sandbox that has something to say (a kernel that started, places it filled, processes it
left, why it is not isolated). The report file is COURSE_SANDBOX_REPORT; the kernel itself never
holds it.
"""
from __future__ import annotations

import json
import os

REPORT = "COURSE_SANDBOX_REPORT"

_fd: int | None = None   # the report, opened once (a supervisor's is handed down as a number)
_path = ""


def record(kind: str, detail: object) -> None:
    """Append one finding to the job's report (a no-op outside a grading job)."""
    global _fd, _path
    try:
        path = os.environ.get(REPORT, "")
        if path and path != _path:  # (a process that grades again, a test, opens the new one)
            _fd, _path = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600), path
        if _fd is not None:
            os.write(_fd, (json.dumps({"kind": kind, "detail": detail}) + "\n").encode())
    except OSError:
        pass


def report_fd() -> int | None:
    """The report's fd in this process, if it has one."""
    return _fd


def write_to(fd: int) -> None:
    """In a supervisor: its findings go to `fd`, the report its launcher opened."""
    global _fd, _path
    _fd, _path = fd, ""


def close() -> None:
    """In a process forked from one that reports (a kernel): it never holds the report."""
    global _fd
    if _fd is not None:
        try:
            os.close(_fd)
        except OSError:
            pass
        _fd = None

