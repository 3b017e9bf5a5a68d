"""Ordinary Linux accounts for the tests that grade or serve as one (CI runs as root and makes them).

Most instructors grade from their own account on a hub, so the security tests run `course
autograde` as such an account too, and the JupyterHub test logs people in as accounts of their own.
"""
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

# PATH of the accounts' processes: this environment first, then the system's.
ACCOUNT_PATH = os.pathsep.join([os.path.dirname(sys.executable), "/usr/bin", "/bin"])


def require_root(why):
    """Fail (never skip) where accounts cannot be made: the suite's claim includes these tests."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.fail(f"{why} needs root on Linux, to make an ordinary account (.ci/run runs as root)")


def opened_for_everyone(paths):
    """Let other accounts traverse the folders above `paths` (this Python may live under /root).

    Returns what to undo: (folder, mode before) for each folder that was changed.
    """
    changed = []
    for path in paths:
        for folder in Path(path).resolve().parents:
            mode = folder.stat().st_mode
            if not mode & stat.S_IXOTH:
                os.chmod(folder, mode | stat.S_IXOTH)
                changed.append((folder, mode))
    return changed


def undo(changed):
    for folder, mode in reversed(changed):
        os.chmod(folder, mode)


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
