"""Per-job cgroups: made where this machine allows them, limited, joined, counted, removed; leftovers cleaned.

The first tests make real cgroups on this machine as root (CI grades as root on a machine whose
cgroup v1 hierarchies root may write, or on cgroup v2): a cgroup is made with the job's limits,
a process that joins it is held by them, and removing it kills what is left and leaves nothing; a
cgroup whose grading process is gone is removed by the next job. The last read another machine's
layout (a cgroup v2 tree in a temporary folder, the mountinfo that points at it) to check where
the course's folder goes and what is written there.
"""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from accounts import require_root
from course_utils.grader.judge.sandbox import cgroups

SLEEPER = [sys.executable, "-c", "import time; time.sleep(600)"]


@pytest.fixture
def made():
    """Job cgroups made by a test, removed afterwards whatever happened."""
    require_root("making cgroups on this machine")
    groups = []
    yield groups
    for group in groups:
        group.remove()


def _in(group):
    """A process started inside `group`."""
    return subprocess.Popen(SLEEPER, preexec_fn=lambda: cgroups.join(group.description) and None)


def test_a_job_cgroup_is_made_with_the_jobs_limits_and_removed_with_what_runs_in_it(made):
    group, why = cgroups.create(256 << 20, 40, 0.5)
    assert group is not None, why
    made.append(group)
    assert {"memory", "pids"} <= set(group.folders), group.folders
    memory, pids = group.folders["memory"], group.folders["pids"]
    if group.version == 2:
        assert Path(memory, "memory.max").read_text().strip() == str(256 << 20)
    else:
        assert Path(memory, "memory.limit_in_bytes").read_text().strip() == str(256 << 20)
    assert Path(pids, "pids.max").read_text().strip() == "40"
    if "cpu" in group.folders:   # half a core: 50 ms in each 100 ms
        cpu = group.folders["cpu"]
        quota = (Path(cpu, "cpu.max").read_text().split()[0] if group.version == 2
                 else Path(cpu, "cpu.cfs_quota_us").read_text().strip())
        assert quota == "50000"
    process = _in(group)
    try:
        deadline = time.monotonic() + 10
        while process.pid not in group.processes() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.pid in group.processes()
        assert group.remove() and process.wait(timeout=10) == -signal.SIGKILL
        assert not any(os.path.exists(folder) for folder in group.folders.values())
        assert group.remove(), "removing it again is a no-op"
    finally:
        if process.poll() is None:
            process.kill()


def test_a_jobs_processes_share_its_memory_and_process_limits(made):
    """Each of three processes is far under the memory limit; together they are over it, and the kernel
    stops one (the count says so). A fork loop stops at the process limit (the count says so too)."""
    group, why = cgroups.create(192 << 20, 24)
    assert group is not None, why
    made.append(group)
    code = '''
import os, time
children = []
for _ in range(3):
    pid = os.fork()
    if pid == 0:
        block = b"x" * (96 << 20)
        time.sleep(2)
        os._exit(0)
    children.append(pid)
print(sorted(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in children))
started = 0
try:
    for _ in range(100):
        if os.fork() == 0:
            time.sleep(2)
            os._exit(0)
        started += 1
except OSError:
    pass
print(started)
'''
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          preexec_fn=lambda: cgroups.join(group.description) and None)
    statuses, started = done.stdout.splitlines()
    used = group.usage()
    assert -signal.SIGKILL in eval(statuses) and used.oom_kills >= 1, (done.stdout, done.stderr, used)
    assert used.memory_peak <= 192 << 20
    assert 10 < int(started) < 24 and used.processes_refused >= 1, (started, used)


def test_the_cgroups_of_a_grading_process_that_is_gone_are_removed_by_the_next_job(made):
    """A grader killed with kill -9 leaves its job's cgroup and maybe a process in it; a later job removes
    both. A cgroup of a grading process that still runs is left alone."""
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(gone.stdout)
    group, why = cgroups.create(256 << 20, 40)
    assert group is not None, why
    made.append(group)
    leftover = cgroups.JobCgroup(group.version)
    for controller, folder in group.folders.items():   # named as a dead grader's would be
        leftover.folders[controller] = os.path.join(os.path.dirname(folder), f"job-{dead_pid}-1-0")
    for folder in set(leftover.folders.values()):
        os.mkdir(folder)
    made.append(leftover)
    process = _in(leftover)
    try:
        deadline = time.monotonic() + 10
        while process.pid not in leftover.processes() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert process.pid in leftover.processes()
        later, _ = cgroups.create(256 << 20, 40)   # the next job
        made.append(later)
        assert not any(os.path.exists(folder) for folder in leftover.folders.values()), "the leftover is gone"
        assert process.wait(timeout=10) == -signal.SIGKILL, "and what ran in it"
        assert all(os.path.isdir(folder) for folder in group.folders.values()), "a live grader's job is left alone"
    finally:
        if process.poll() is None:
            process.kill()


class _V2Kernel:
    """Just enough of cgroup v2's file interface, on a temporary folder, for `cgroups` to be read and
    written as a v2 kernel would answer: a new cgroup's files, controllers passed on through
    cgroup.subtree_control (only those the cgroup has), limits written to files that exist."""

    def __init__(self, root, own, offered):
        self.root = root
        self.mkdir(str(root), offered=offered)
        here = root
        for part in own.strip("/").split("/") if own != "/" else []:
            self._write(str(here / "cgroup.subtree_control"), " ".join(f"+{c}" for c in offered.split()))
            here = here / part
            self.mkdir(str(here))

    def mkdir(self, path, mode=0o777, offered=None):
        os.mkdir(path, mode)
        parent = Path(path).parent / "cgroup.subtree_control"
        given = offered if offered is not None else (parent.read_text() if parent.exists() else "")
        for name, text in {"cgroup.controllers": given, "cgroup.subtree_control": "", "cgroup.procs": "",
                           "memory.max": "max", "memory.swap.max": "max", "pids.max": "max",
                           "cpu.max": "max 100000"}.items():
            Path(path, name).write_text(text)

    def _write(self, path, value):
        if not os.path.exists(path):
            return "No such file or directory"
        if os.path.basename(path) == "cgroup.subtree_control":
            offered = set(Path(os.path.dirname(path), "cgroup.controllers").read_text().split())
            enabled = set(Path(path).read_text().split())
            for token in value.split():
                if token[1:] not in offered:
                    return "No such file or directory"
                enabled = enabled | {token[1:]} if token[0] == "+" else enabled - {token[1:]}
            value = " ".join(sorted(enabled))
        Path(path).write_text(value)
        return ""


@pytest.fixture
def v2(tmp_path, monkeypatch):
    """make(own, offered, writable) -> (mountinfo, /proc/self/cgroup, root) of a cgroup v2 machine in tmp_path,
    where this account may write only below `writable` (root: everywhere)."""
    def make(own, offered="cpuset cpu io memory pids", writable="/"):
        root = tmp_path / "cgroup"
        kernel = _V2Kernel(root, own, offered)
        mine = str(root / writable.strip("/"))

        def access(path, mode):
            return str(path) == mine or str(path).startswith(mine.rstrip("/") + "/")

        def mkdir(path, mode=0o777):
            if not access(os.path.dirname(path), os.W_OK):
                raise PermissionError(13, "Permission denied", path)
            kernel.mkdir(path, mode)

        def makedirs(path, exist_ok=False):
            if not os.path.isdir(path):
                makedirs(os.path.dirname(path), exist_ok=True)
                mkdir(path)

        shim = type("os", (), {"mkdir": staticmethod(mkdir), "makedirs": staticmethod(makedirs),
                               "access": staticmethod(access),
                               "__getattr__": lambda self, name: getattr(os, name)})()
        monkeypatch.setattr(cgroups, "os", shim)
        monkeypatch.setattr(cgroups, "_write", kernel._write)
        return f"35 24 0:30 / {root} rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n", f"0::{own}\n", root
    return make


def test_as_root_on_cgroup_v2_the_courses_folder_goes_beside_the_graders_own_cgroup(v2, monkeypatch):
    """A v2 cgroup that holds processes passes no controller down, so, as root, the course's folder is
    made below its parent, with memory, pids and cpu passed on; a job's cgroup there gets its limits."""
    mountinfo, own, root = v2("/system.slice/dask-worker.service")
    found, why = cgroups.place(mountinfo, own, uid=0)
    assert why == "" and [(h.version, h.folder, h.controllers) for h in found] == [
        (2, str(root / "system.slice" / cgroups.FOLDER), ("memory", "pids", "cpu"))], why
    monkeypatch.setattr(cgroups, "_PLACE", (found, ""))
    group, why = cgroups.create(3 << 30, 300, 2)
    assert group is not None and group.version == 2, why
    folder = Path(group.folders["memory"])
    assert folder.parent == root / "system.slice" / cgroups.FOLDER and folder.name.startswith(f"job-{os.getpid()}-")
    assert {name: (folder / name).read_text() for name in ("memory.max", "memory.swap.max", "pids.max", "cpu.max")} \
        == {"memory.max": str(3 << 30), "memory.swap.max": "0", "pids.max": "300", "cpu.max": "200000 100000"}


def test_in_a_cgroup_delegated_to_the_account_its_processes_move_to_a_leaf_and_the_folder_goes_beside(v2):
    """systemd's Delegate=yes gives the unit's cgroup to the account, not its parent: as systemd asks
    of a delegated unit, the grader's processes move into a leaf and the course's folder is made there."""
    unit = "/system.slice/dask-worker.service"
    mountinfo, own, root = v2(unit, writable=unit)
    (root / unit.strip("/") / "cgroup.procs").write_text("4242\n")
    found, why = cgroups.place(mountinfo, own, uid=1000)
    here = root / unit.strip("/")
    assert why == "" and [h.folder for h in found] == [str(here / cgroups.FOLDER)], why
    assert (here / f"{cgroups.FOLDER}-grader" / "cgroup.procs").read_text() == "4242"
    assert set((here / "cgroup.subtree_control").read_text().split()) == {"memory", "pids", "cpu"}


def test_an_account_with_no_cgroup_of_its_own_on_cgroup_v2_is_told_how_to_get_one(v2):
    mountinfo, own, root = v2("/user.slice/user-1000.slice/session-3.scope", writable="/nowhere")
    found, why = cgroups.place(mountinfo, own, uid=1000)
    assert found == [] and why.startswith(f"cgroup v2: this account may not make cgroups in {root}/user.slice/")
    assert why.endswith("grade as root, or from a cgroup delegated to the grading account")


def test_at_the_root_of_cgroup_v2_the_courses_folder_is_below_the_root(v2):
    mountinfo, own, root = v2("/")
    found, why = cgroups.place(mountinfo, own, uid=0)
    assert why == "" and found[0].folder == str(root / cgroups.FOLDER)
    assert set((root / "cgroup.subtree_control").read_text().split()) == {"memory", "pids", "cpu"}, \
        "the root passes them on"


def test_without_the_controllers_the_reason_says_which_are_offered(v2):
    mountinfo, own, _ = v2("/system.slice/grader.service", offered="cpu io")
    found, why = cgroups.place(mountinfo, own, uid=1000)
    assert found == [] and "cgroup v2 offers this process no memory and pids controllers (cpu io)" in why
    found, why = cgroups.place("", "", uid=1000)
    assert found == [] and why == "no cgroup hierarchy is mounted"


def test_an_account_that_may_not_make_cgroups_is_told_how_to_get_one(tmp_path, monkeypatch):
    """cgroup v1 hierarchies whose folders are root's: the account is told to grade as root or from a
    cgroup delegated to it."""
    mountinfo = "".join(f"3{i} 24 0:3{i} / {tmp_path}/{c} rw - cgroup cgroup rw,{c}\n"
                        for i, c in enumerate(("memory", "pids")))

    def refused(path, exist_ok=False):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(cgroups.os, "makedirs", refused)
    found, why = cgroups.place(mountinfo, "4:memory:/grader\n8:pids:/grader\n", uid=1000)
    assert found == [] and why == (f"cgroup v1: this account may not make cgroups in {tmp_path}/memory/grader "
                                   "(Permission denied): grade as root, or from a cgroup delegated to the grading "
                                   "account")
