"""The job's report: what the sandbox's launcher and supervisor found, as JSON lines for the grader.

For `jobs.read_report`, which turns these lines into a row's flags and notes, and for every stage
of the sandbox that has something to say (a kernel that started, places it filled, processes it
left, why it is not isolated). The report file is COURSE_SANDBOX_REPORT, opened by the launcher
outside the sandbox. Nothing inside the sandbox holds that file: the supervisor writes its findings
into a pipe, and the launcher relays only the kinds a supervisor reports, so that a kernel that
reached the pipe could neither erase nor forge a line of anyone else's (nbgrader's "edited graded
cell" lines among them).
"""
from __future__ import annotations

import json
import os
import threading

REPORT = "COURSE_SANDBOX_REPORT"
# What a supervisor (inside the sandbox) may report; anything else in its pipe is dropped.
FROM_INSIDE = ("storage", "outlived", "isolation")

_fd: int | None = None   # the report, opened once (a supervisor's is its pipe, handed down as a number)
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
    """In a supervisor: its findings go to `fd`, the pipe its launcher relays."""
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



def relay(read_fd: int) -> threading.Thread:
    """Record what a supervisor writes into the pipe `read_fd`, line by line, until it closes.

    A line longer than a finding can be, or of a kind a supervisor never reports, is dropped.
    """
    def run() -> None:
        pending = b""
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            while chunk := pipe.read(1 << 16):
                pending += chunk
                *lines, pending = pending.split(b"\n")
                if len(pending) > 1 << 16:
                    pending = b""
                for line in lines:
                    try:
                        item = json.loads(line)
                        if item["kind"] in FROM_INSIDE:
                            record(item["kind"], item["detail"])
                    except (ValueError, KeyError, TypeError):
                        continue

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread
