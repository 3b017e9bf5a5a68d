"""What the tests of hostile submissions watch from outside the sandbox: the loopback, leftover processes."""
import contextlib
import os
import socket
import threading
from pathlib import Path


class LoopbackListener:
    """A TCP listener on this machine's loopback that records every connection it gets (and its first bytes)."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port, self.received = self.server.getsockname()[1], []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        with contextlib.suppress(OSError):
            while True:
                conn, _ = self.server.accept()
                self.received.append(conn.recv(1024))


def leftover_processes(marker):
    """The pids of running processes whose command line holds `marker`."""
    found = []
    for pid in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            if pid.isdigit() and marker.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
    return found
