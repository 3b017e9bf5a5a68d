"""What a graded kernel writes to its stdout and stderr (fd 1 and 2), capped before it reaches the grader.

For the sandbox's launchers: the kernel's own stdout and stderr are not the notebook's output
(ipykernel sends that to the grader over its sockets, and nbgrader caps it), but whatever the
kernel, its supervisor, bwrap and any process they start write to the file descriptors they
inherit. Left alone, those land in nbgrader's log on the grading machine's disk, which the grader
then reads: 700 MB written by one notebook filled the disk and 1.5 GB of the grader's memory. Here
they go into a pipe that the launcher drains: the first HEAD_BYTES are passed on as they come,
the rest is dropped but for the last TAIL_BYTES, passed on when the pipe closes after a line that
says how much was left out (jobs.py keeps the end of the log for the instructor).
"""
from __future__ import annotations

import os
import threading

HEAD_BYTES = 64 << 10   # passed on as written: a traceback at the start, bwrap's own messages
TAIL_BYTES = 16 << 10   # the last of it, passed on at the end: how the kernel ended


class CappedOutput:
    """A pipe for a sandbox's stdout and stderr, drained into `sink` (an fd) with a cap."""

    def __init__(self, sink: int = 2, head: int = HEAD_BYTES, tail: int = TAIL_BYTES) -> None:
        self.sink, self.head, self.tail = sink, head, tail
        self.read_fd, self.write_fd = os.pipe()
        self.passed = self.left_out = 0
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        kept = bytearray()
        while True:
            try:
                chunk = os.read(self.read_fd, 1 << 16)
            except InterruptedError:
                continue
            except OSError:
                break
            if not chunk:
                break
            if self.passed < self.head:
                now = chunk[:self.head - self.passed]
                self._pass(now)
                chunk = chunk[len(now):]
            kept += chunk
            if len(kept) > self.tail:
                self.left_out += len(kept) - self.tail
                del kept[:len(kept) - self.tail]
        os.close(self.read_fd)
        if self.left_out:
            self._pass(f"\n[... {self.left_out} bytes of the graded kernel's output left out by the grader ...]\n"
                       .encode())
        self._pass(bytes(kept))

    def _pass(self, data: bytes) -> None:
        self.passed += len(data)
        while data:
            try:
                data = data[os.write(self.sink, data):]
            except InterruptedError:
                continue
            except OSError:   # nobody reads the sink any more: the rest is dropped
                return

    def close_writer(self) -> None:
        """Close this process's own write end, once the processes that write have theirs."""
        if self.write_fd >= 0:
            os.close(self.write_fd)
            self.write_fd = -1

    def finish(self, seconds: float = 5.0) -> None:
        """Wait (at most `seconds`) until every writer closed the pipe and the tail is passed on."""
        self.close_writer()
        self._thread.join(seconds)
