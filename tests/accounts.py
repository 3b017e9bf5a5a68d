"""Ordinary Linux accounts for the tests that grade or serve as one (CI runs as root and makes them).

Most instructors grade from their own account on a hub, so the security tests run `course
autograde` as such an account too, and the JupyterHub test logs people in as accounts of their own.
"""
import contextlib
import fcntl
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

# PATH of the accounts' processes: this environment first, then the system's.
ACCOUNT_PATH = os.pathsep.join([os.path.dirname(sys.executable), "/usr/bin", "/bin"])


def require_root(why):
    """Fail (never skip) where accounts cannot be made: the suite's claim includes these tests."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.fail(f"{why} needs root on Linux, to make an ordinary account (.ci/run runs as root)")


# The folders opened for other accounts, shared by every pytest process of a run (xdist's workers run the
# account tests of different modules at once): {folder: [its mode before, how many fixtures hold it open]}.
_OPENED = Path(tempfile.gettempdir()) / "attention-graded-tests-opened.json"
_RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID", str(os.getpid()))


@contextlib.contextmanager
def _opened_state():
    with open(_OPENED.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            saved = json.loads(_OPENED.read_text()) if _OPENED.is_file() else {}
        except ValueError:
            saved = {}
        state = saved.get("folders", {})
        if saved.get("run") != _RUN:   # left by a run that was killed: its modes before hold, its counts do not
            state = {folder: [mode, 0] for folder, (mode, _) in state.items()}
        yield state
        _OPENED.write_text(json.dumps({"run": _RUN, "folders": state}))


def opened_for_everyone(paths):
    """Let other accounts traverse the folders above `paths` (this Python may live under /root).

    Returns what to pass to `undo`. A folder is closed again by the last fixture that needed it open:
    closed by the first, another worker's account would lose its Python in the middle of a run.
    """
    folders = sorted({str(folder) for path in paths for folder in Path(path).resolve().parents})
    held = []
    with _opened_state() as state:
        for folder in folders:
            if folder in state:   # open already (its mode before is the one to restore)
                if not state[folder][1]:
                    os.chmod(folder, state[folder][0] | stat.S_IXOTH)
                state[folder][1] += 1
                held.append(folder)
                continue
            mode = os.stat(folder).st_mode
            if not mode & stat.S_IXOTH:
                os.chmod(folder, mode | stat.S_IXOTH)
                state[folder] = [mode, 1]
                held.append(folder)
    return held


def undo(held):
    with _opened_state() as state:
        for folder in held:
            if folder not in state:
                continue
            state[folder][1] -= 1
            if state[folder][1] <= 0:
                os.chmod(folder, state.pop(folder)[0])


def add_account(name):
    """A fresh account with a home folder (one left by an interrupted run is removed first)."""
    subprocess.run(["userdel", "-r", name], capture_output=True)
    subprocess.run(["useradd", "-m", "-s", "/bin/bash", name], check=True, capture_output=True)
    return Path(f"/home/{name}")


def remove_accounts(*names):
    for name in names:
        subprocess.run(["pkill", "-KILL", "-u", name], capture_output=True)
    for name in names:
        subprocess.run(["userdel", "-r", name], capture_output=True)


def give(path, user):
    """Hand a folder and everything in it to `user`."""
    subprocess.run(["chown", "-R", f"{user}:{user}", str(path)], check=True)


def as_account(user, *command, cwd, timeout=900, **env):
    """Run a command as `user` (a login-like environment: their HOME, this venv first on PATH)."""
    environment = {"HOME": f"/home/{user}", "USER": user, "LOGNAME": user, "LANG": "C.UTF-8",
                   "PATH": ACCOUNT_PATH, **env}
    runuser = shutil.which("runuser") or "/usr/sbin/runuser"
    return subprocess.run([runuser, "-u", user, "--", *command], cwd=cwd, env=environment, capture_output=True,
                          text=True, timeout=timeout)
