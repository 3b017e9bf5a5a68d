"""One cgroup per graded kernel: memory, processes and CPU limited for all of a job's processes together.

For the grading worker (`jobs`), which makes a cgroup for each sandbox it has started (a job's,
or one pre-started for the next job), names it to the kernel's launcher (COURSE_SANDBOX_CGROUP),
which moves itself into it before it starts bwrap, so that the supervisor, the kernel and
everything they start are in it too and cannot leave it. After the job the worker reads which
limit was reached and removes the cgroup, killing whatever is still in it. Per-process limits
(RLIMIT_DATA) let three processes of 1.5 GB each hold 4.5 GB against a 4 GB limit; a cgroup
counts them together, which only the Linux kernel can do.

Where, in order: cgroup v2 where this process's cgroup offers the memory and pids controllers
(as root, or in a subtree systemd delegates to the grading account, whose cgroups it may write);
else cgroup v1's memory and pids hierarchies (cpu too where mounted) where this account may make
cgroups (root, or a folder an administrator gave the account). The course's cgroups live in a
folder of their own, FOLDER, in each hierarchy: in v1 below this process's own cgroup; in v2, where
a cgroup that holds processes cannot give controllers to cgroups below it, beside it: below its
parent (as root, or where the account owns the parent: a `systemd-run --user --scope`), or, in a
cgroup delegated to the account itself (a unit with `Delegate=yes`), below it once its processes
have moved into a leaf, as systemd asks of a delegated unit. Elsewhere `create` says why not, and
the sandbox keeps its limits per process (see `limits`).

Each job's cgroup is named after the grading process that made it (its pid and start time), so
that a later job, or the next run, removes those whose grading process is gone (killed with
`kill -9`, or the machine's out-of-memory killer), and nothing else.
"""
from __future__ import annotations

import atexit
import errno
import itertools
import json
import os
import signal
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

CGROUP = "COURSE_SANDBOX_CGROUP"   # the job's cgroup folders (JSON), for the kernel's launcher
FOLDER = "attention-graded"        # the course's folder in each hierarchy
CPU_PERIOD = 100_000               # microseconds: cpu.max's (and cfs_period_us's) default period
_NAMES = itertools.count()
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Hierarchy:
    """Where this process may make cgroups in one hierarchy: `folder` is the course's folder there."""
    version: int                  # 1 or 2
    controllers: tuple[str, ...]  # those the course's cgroups get here
    folder: str


@dataclass
class Usage:
    """What a job's processes used and reached, as its cgroup counted them (0: not counted here)."""
    memory_peak: int = 0          # bytes, all processes together
    oom_kills: int = 0            # processes the kernel killed at the memory limit
    processes_peak: int = 0       # processes and threads at once
    processes_refused: int = 0    # forks and new threads refused at the limit


@dataclass
class JobCgroup:
    """One job's cgroup: a folder in each hierarchy, all of the same name."""
    version: int
    folders: dict[str, str] = field(default_factory=dict)   # controller -> the folder holding its files
    removed: bool = False

    @property
    def description(self) -> str:
        """What the kernel's launcher gets (COURSE_SANDBOX_CGROUP) to join this cgroup."""
        return json.dumps(sorted(set(self.folders.values())))

    @property
    def kind(self) -> str:
        """The limits it holds, for people: "cgroup v1 (memory, pids, cpu)"."""
        return f"cgroup v{self.version} ({', '.join(self.folders)})"

    def usage(self) -> Usage:
        """Peaks and limits reached so far."""
        used = Usage()
        memory, pids = self.folders.get("memory"), self.folders.get("pids")
        if memory and self.version == 2:
            used.oom_kills = _counter(os.path.join(memory, "memory.events"), "oom_kill")
            used.memory_peak = _number(os.path.join(memory, "memory.peak"))
        elif memory:
            used.oom_kills = _counter(os.path.join(memory, "memory.oom_control"), "oom_kill")
            used.memory_peak = _number(os.path.join(memory, "memory.max_usage_in_bytes"))
        if pids:
            used.processes_refused = _counter(os.path.join(pids, "pids.events"), "max")
            used.processes_peak = _number(os.path.join(pids, "pids.peak"))
        return used

    def processes(self) -> set[int]:
        """The processes in it now."""
        found: set[int] = set()
        for folder in set(self.folders.values()):
            found |= _procs(folder)
        return found

    def kill(self, seconds: float = 10.0) -> list[int]:
        """Kill every process in it until none is left (or `seconds` pass); the processes killed."""
        killed: set[int] = set()
        folders = sorted(set(self.folders.values()))
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            left = self.processes()
            if not left:
                break
            if self.version == 2 and _write(os.path.join(folders[0], "cgroup.kill"), "1") == "":
                killed |= left   # the kernel kills them all at once, new forks included
            else:
                killed |= _kill_members(left, folders)
            time.sleep(0.02)
        return sorted(killed)

    def remove(self, seconds: float = 10.0) -> bool:
        """Kill what is left in it and remove its folders; True once they are gone (again: a no-op)."""
        if self.removed:
            return True
        self.kill(seconds)
        left = sorted(set(self.folders.values()))
        deadline = time.monotonic() + 5.0   # a process just killed may take a moment to leave it
        while left:
            for folder in list(left):
                try:
                    os.rmdir(folder)
                except FileNotFoundError:
                    pass
                except OSError as error:
                    if error.errno != errno.EBUSY:
                        return False
                    continue
                left.remove(folder)
            if left:
                if time.monotonic() > deadline:
                    break
                self.kill(0.5)
                time.sleep(0.02)
        self.removed = not left
        return self.removed


def create(memory_bytes: int, processes: int, cpus: float = 0) -> tuple[JobCgroup | None, str]:
    """A cgroup for one job: at most `memory_bytes` of memory (no swap), `processes` processes and
    threads, `cpus` cores of CPU time (0: no CPU limit); or None and why none can be made here.

    Removes first the cgroups of grading processes that are gone (`clean_leftovers`).
    """
    global _PLACE
    group, why = _create(memory_bytes, processes, cpus)
    if group is None and _PLACE and not all(os.path.isdir(h.folder) for h in _PLACE[0]):
        _PLACE = None   # another grader removed the course's folder as it ended: make it again
        group, why = _create(memory_bytes, processes, cpus)
    return group, why


def _create(memory_bytes: int, processes: int, cpus: float) -> tuple[JobCgroup | None, str]:
    hierarchies, why = place()
    if not hierarchies:
        return None, why
    clean_leftovers(hierarchies)
    with _LOCK:
        name = f"job-{os.getpid()}-{_start_time(os.getpid())}-{next(_NAMES)}"
    group = JobCgroup(hierarchies[0].version)
    for hierarchy in hierarchies:
        folder = os.path.join(hierarchy.folder, name)
        try:
            os.mkdir(folder)
        except OSError as error:
            group.remove()
            return None, f"could not make a cgroup in {hierarchy.folder} ({error.strerror})"
        for controller in hierarchy.controllers:
            group.folders[controller] = folder
    problem = _set_limits(group, memory_bytes, processes, cpus)
    if problem:
        group.remove()
        return None, problem
    return group, ""


def _set_limits(group: JobCgroup, memory_bytes: int, processes: int, cpus: float) -> str:
    """Write the limits into the job's cgroup; "" or what could not be written."""
    memory, pids, cpu = (group.folders.get(c) for c in ("memory", "pids", "cpu"))
    if group.version == 2:
        wanted = [(memory, "memory.max", str(memory_bytes)), (pids, "pids.max", str(processes))]
        optional = [(memory, "memory.swap.max", "0")]
        if cpu and cpus:
            wanted.append((cpu, "cpu.max", f"{max(1000, int(cpus * CPU_PERIOD))} {CPU_PERIOD}"))
    else:
        # memsw after the memory limit: the kernel keeps memory+swap at least the memory limit.
        wanted = [(memory, "memory.limit_in_bytes", str(memory_bytes)), (pids, "pids.max", str(processes))]
        optional = [(memory, "memory.memsw.limit_in_bytes", str(memory_bytes))]
        if cpu and cpus:
            wanted += [(cpu, "cpu.cfs_period_us", str(CPU_PERIOD)),
                       (cpu, "cpu.cfs_quota_us", str(max(1000, int(cpus * CPU_PERIOD))))]
    for folder, name, value in wanted:
        problem = _write(os.path.join(folder, name), value)
        if problem:
            return f"could not set {name} of {folder} ({problem})"
    for folder, name, value in optional:   # swap accounting may be off: then there is no swap to limit
        if os.path.exists(os.path.join(folder, name)):
            _write(os.path.join(folder, name), value)
    return ""


def join(description: str, pid: int = 0) -> str:
    """Move this process (or `pid`) into the job's cgroup that `description` names; "" or why not.

    The kernel's launcher calls it first thing, so that bwrap and everything below start inside.
    """
    try:
        folders = json.loads(description)
    except ValueError:
        return f"{CGROUP} is not a cgroup's description"
    for folder in folders:
        problem = _write(os.path.join(folder, "cgroup.procs"), str(pid or os.getpid()))
        if problem:
            return f"could not join the job's cgroup {folder} ({problem})"
    return ""


def clean_leftovers(hierarchies: Iterable[Hierarchy] | None = None) -> list[str]:
    """Remove the job cgroups whose grading process is gone, killing what is left in them; their names."""
    hierarchies = list(place()[0] if hierarchies is None else hierarchies)
    names: set[str] = set()
    for hierarchy in hierarchies:
        try:
            names |= {n for n in os.listdir(hierarchy.folder) if n.startswith("job-")}
        except OSError:
            continue
    removed = []
    for name in sorted(names):
        try:
            _, pid, start, _ = name.split("-")
        except ValueError:
            continue
        if pid.isdigit() and _start_time(int(pid)) == start:
            continue   # its grading process runs: its job may be under way
        group = JobCgroup(hierarchies[0].version)
        for hierarchy in hierarchies:
            if os.path.isdir(os.path.join(hierarchy.folder, name)):
                for controller in hierarchy.controllers:
                    group.folders[controller] = os.path.join(hierarchy.folder, name)
        if group.remove():
            removed.append(name)
    return removed


_PLACE: tuple[list[Hierarchy], str] | None = None


def place(mountinfo: str | None = None, own: str | None = None, uid: int | None = None) -> tuple[list[Hierarchy], str]:
    """The hierarchies where this process makes job cgroups (the course's folder made in each), or
    none and why not. Read once per process; the arguments (for tests) read another machine's."""
    global _PLACE
    if mountinfo is None and _PLACE is not None:
        return _PLACE
    found = _find(_read(mountinfo, "/proc/self/mountinfo"), _read(own, "/proc/self/cgroup"),
                  os.geteuid() if uid is None else uid)
    if mountinfo is None:
        _PLACE = found
        atexit.register(_remove_folders, found[0])
    return found


def _remove_folders(hierarchies: list[Hierarchy]) -> None:
    """At exit: the course's folders go if no job's cgroup is left in them (another grader's may be)."""
    for hierarchy in hierarchies:
        try:
            os.rmdir(hierarchy.folder)
        except OSError:
            pass


def _find(mountinfo: str, own: str, uid: int) -> tuple[list[Hierarchy], str]:
    mounts = _mounts(mountinfo)
    if not mounts:
        return [], "no cgroup hierarchy is mounted"
    paths = {}
    for line in own.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(",") if parts[1] else [""]:
                paths[controller] = parts[2]
    v2_why = ""
    for mount_root, point, fstype, options in mounts:
        if fstype == "cgroup2" and "" in paths:
            found, v2_why = _v2(point, mount_root, paths[""], uid)
            if found:
                return found, ""
    found, v1_why = _v1(mounts, paths, uid)
    if found:
        return found, ""
    # On a hybrid machine (v1 controllers, an empty v2 tree) what v1 lacks is what to change.
    v1_mounted = any(fstype == "cgroup" and "memory" in options for _, _, fstype, options in mounts)
    return [], v1_why if v1_mounted or not v2_why else v2_why


def _v2(point: str, mount_root: str, own: str, uid: int) -> tuple[list[Hierarchy], str]:
    """The course's folder in the v2 hierarchy mounted at `point`, made if need be."""
    inside = _below(own, mount_root)
    if inside is None:
        return [], ""
    here = os.path.join(point, inside.lstrip("/"))
    offered = _read_words(os.path.join(here, "cgroup.controllers"))
    if not {"memory", "pids"} <= offered:
        return [], ("cgroup v2 offers this process no memory and pids controllers "
                    f"({' '.join(sorted(offered)) or 'none'})")
    wanted = [c for c in ("memory", "pids", "cpu") if c in offered]
    if uid != 0 and inside not in ("", "/") and os.access(here, os.W_OK) and \
            os.access(os.path.join(here, "cgroup.procs"), os.W_OK):
        # A cgroup an ordinary account owns was delegated to it (systemd's Delegate=yes). A v2 cgroup
        # that holds processes passes no controller down (no internal processes), so, as systemd
        # asks of a delegated unit, its processes move into a leaf and the course's folder goes beside.
        leaf = os.path.join(here, f"{FOLDER}-grader")
        problem = _make_folder(leaf, uid, "cgroup v2")
        for pid in sorted(_procs(here)) if not problem else []:
            _write(os.path.join(leaf, "cgroup.procs"), str(pid))
        return _v2_folder(here, wanted, uid) if not problem else ([], problem)
    # A v2 cgroup that holds processes passes no controller down, so the course's folder goes beside
    # this process's cgroup, below its parent (root's, or in a subtree delegated above this one), or
    # below the root.
    return _v2_folder(point if inside in ("", "/") else os.path.dirname(here), wanted, uid)


def _v2_folder(base: str, wanted: list[str], uid: int) -> tuple[list[Hierarchy], str]:
    """The course's folder below `base`, which passes the `wanted` controllers on to it and it to jobs."""
    enabled = _read_words(os.path.join(base, "cgroup.subtree_control"))
    if not set(wanted) <= enabled:
        _write(os.path.join(base, "cgroup.subtree_control"), " ".join(f"+{c}" for c in wanted if c not in enabled))
        enabled = _read_words(os.path.join(base, "cgroup.subtree_control"))
    if not {"memory", "pids"} <= enabled:
        return [], (f"cgroup v2: {base} does not pass the memory and pids controllers to cgroups below it "
                    "(a container's cgroup root that holds its processes cannot: move them into a cgroup below it, "
                    "as Docker-in-Docker's entrypoint does)")
    folder = os.path.join(base, FOLDER)
    problem = _make_folder(folder, uid, "cgroup v2")
    if problem:
        return [], problem
    for controller in wanted:   # one by one: a controller that cannot be enabled leaves the others
        if controller in enabled:
            _write(os.path.join(folder, "cgroup.subtree_control"), f"+{controller}")
    given = tuple(c for c in wanted if c in _read_words(os.path.join(folder, "cgroup.subtree_control")))
    if not {"memory", "pids"} <= set(given):
        return [], f"cgroup v2: could not pass the memory and pids controllers to the cgroups in {folder}"
    return [Hierarchy(2, given, folder)], ""


def _v1(mounts: list[tuple[str, str, str, set[str]]], paths: dict[str, str], uid: int) -> tuple[list[Hierarchy], str]:
    """The course's folder in cgroup v1's memory and pids hierarchies (and cpu's, where mounted)."""
    found: dict[str, Hierarchy] = {}
    for controller in ("memory", "pids", "cpu"):
        mount = next(((r, p) for r, p, fstype, options in mounts if fstype == "cgroup" and controller in options), None)
        inside = _below(paths.get(controller, ""), mount[0]) if mount else None
        if inside is None:
            if controller == "cpu":
                continue
            return [], f"cgroup v1 has no {controller} hierarchy for this process"
        folder = os.path.join(mount[1], inside.lstrip("/"), FOLDER)
        if folder in found:   # co-mounted controllers (cpu,cpuacct): one folder
            found[folder] = Hierarchy(1, (*found[folder].controllers, controller), folder)
            continue
        problem = _make_folder(folder, uid, "cgroup v1")
        if problem:
            if controller == "cpu":
                continue
            return [], problem
        found[folder] = Hierarchy(1, (controller,), folder)
    return list(found.values()), ""


def _make_folder(folder: str, uid: int, kind: str) -> str:
    """Make the course's folder (or find it, made by another grader); "" or why this account may not."""
    try:
        os.makedirs(folder, exist_ok=True)
        if os.access(folder, os.W_OK):   # another account's (root's) folder: no cgroup of ours in it
            return ""
        error = PermissionError(errno.EACCES, os.strerror(errno.EACCES))
    except OSError as raised:
        error = raised
    who = "root" if uid == 0 else "this account"
    return (f"{kind}: {who} may not make cgroups in {os.path.dirname(folder)} ({error.strerror}): "
            "grade as root, or from a cgroup delegated to the grading account")


def _mounts(mountinfo: str) -> list[tuple[str, str, str, set[str]]]:
    """(root, mount point, fstype, super options) of each cgroup mount in /proc/self/mountinfo's text."""
    found = []
    for line in mountinfo.splitlines():
        fields = line.split()
        if " - " not in line or len(fields) < 5:
            continue
        after = line.split(" - ", 1)[1].split()
        if len(after) >= 3 and after[0] in ("cgroup", "cgroup2"):
            point = fields[4].replace("\\040", " ")
            found.append((fields[3], point, after[0], set(after[2].split(","))))
    return found


def _below(path: str, mount_root: str) -> str | None:
    """`path` (a cgroup, as /proc/self/cgroup names it) relative to a mount of `mount_root`, or None."""
    if not path:
        return None
    if mount_root in ("/", ""):
        return path
    if path == mount_root or path.startswith(mount_root.rstrip("/") + "/"):
        return path[len(mount_root.rstrip("/")):] or "/"
    return None


def _kill_members(pids: set[int], folders: list[str]) -> set[int]:
    """SIGKILL those of `pids` still in the cgroup, through pidfds, so that a pid reused by another
    process after the cgroup was read is never signalled."""
    handles = {}
    for pid in pids:
        try:
            handles[pid] = os.pidfd_open(pid)
        except OSError:   # gone already
            continue
    members: set[int] = set()
    for folder in folders:
        members |= _procs(folder)
    killed = set()
    for pid, handle in handles.items():
        try:
            if pid in members:
                signal.pidfd_send_signal(handle, signal.SIGKILL)
                killed.add(pid)
        except OSError:
            pass
        finally:
            os.close(handle)
    return killed


def _procs(folder: str) -> set[int]:
    try:
        with open(os.path.join(folder, "cgroup.procs")) as handle:
            return {int(line) for line in handle if line.strip()}
    except (OSError, ValueError):
        return set()


def _start_time(pid: int) -> str:
    """The start time of process `pid` (clock ticks since boot), "" where it does not run."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
        return stat[stat.rfind(b")") + 2:].split()[19].decode()
    except (OSError, IndexError):
        return ""


def _write(path: str, value: str) -> str:
    """Write `value` to a cgroup file; "" or the error."""
    try:
        with open(path, "w") as handle:
            handle.write(value)
        return ""
    except OSError as error:
        return error.strerror or str(error)


def _read(given: str | None, path: str) -> str:
    if given is not None:
        return given
    try:
        with open(path) as handle:
            return handle.read()
    except OSError:
        return ""


def _read_words(path: str) -> set[str]:
    return set(_read(None, path).split())


def _number(path: str) -> int:
    try:
        return int(_read(None, path).strip() or 0)
    except ValueError:
        return 0


def _counter(path: str, name: str) -> int:
    for line in _read(None, path).splitlines():
        key, _, value = line.partition(" ")
        if key == name and value.strip().isdigit():
            return int(value)
    return 0
