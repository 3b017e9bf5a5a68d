"""The kernel launcher used while grading: limits, isolation by allowlist, containment, tamper evidence.

nbgrader runs student code in a plain Jupyter kernel, with the grader's permissions.
`course autograde` points the kernelspec `python3` at this module instead of ipykernel, so
each graded kernel:

- gets a memory limit (RLIMIT_DATA) and a CPU-time limit, so a hog or a spin kills only
  its own kernel;
- where the grader runs as root on Linux, runs in new mount and PID namespaces, inside a
  root made only of what it may read: its own job folder (read-write), a private home and
  /tmp, the Python installation, this package and the system's own folders (read-only).
  Nothing else exists there: not the course root, not other jobs, not the grader's home,
  whatever was created after grading began. The kernel drops every capability, so it
  cannot mount, chroot or trace its way out;
- ends with everything it started: in the PID namespace every process dies with the
  kernel; elsewhere this launcher is a child subreaper that ends the processes left over
  (new sessions, double forks, daemons). The report says how many it had to end;
- records, through a Python audit hook that student code cannot remove, every file opened
  outside the allowlist, wherever the course lives; `integrity` (loaded into the kernel
  before any cell) records whatever the tests rely on that changed.

Everything lands in COURSE_SANDBOX_REPORT as JSON lines, which `jobs.read_flags` turns into
the `flags` column. Where namespaces are unavailable (not root, not Linux), the report says
the job was not isolated, and containment falls back to the subreaper.

Hand-written rather than a library: no maintained Python package offers per-kernel
isolation for nbgrader, and containers are not available on every grading machine.

Run as: python -m course_utils.grader.sandbox -f CONNECTION_FILE
"""
from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys
import tempfile

REPORT = os.environ.get("COURSE_SANDBOX_REPORT", "")  # read again by record() where unset at import
HOME = os.environ.get("COURSE_SANDBOX_HOME", "")
MEMORY_BYTES = int(os.environ.get("COURSE_SANDBOX_MEMORY_BYTES", "0") or 0)
CPU_SECONDS = int(os.environ.get("COURSE_SANDBOX_CPU_SECONDS", "0") or 0)

CLONE_NEWNS, CLONE_NEWPID = 0x00020000, 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 1, 2, 4, 32, 4096, 16384, 1 << 18
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_SET_CHILD_SUBREAPER = 1, 38, 24, 36
SYSTEM_FOLDERS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")

try:
    _LIBC = ctypes.CDLL(None, use_errno=True)
except OSError:  # not a POSIX C library: no namespaces, no prctl
    _LIBC = None

_report: tuple[str, int] | None = None  # (path, fd): opened before the root changes, kept open after


def record(kind: str, detail: object) -> None:
    """Append one finding to the job's report (a no-op outside a grading job)."""
    global _report
    path = REPORT or os.environ.get("COURSE_SANDBOX_REPORT", "")  # the env: where set after import
    if not path:
        return
    try:
        if _report is None or _report[0] != path:
            _report = (path, os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600))
        os.write(_report[1], (json.dumps({"kind": kind, "detail": detail}) + "\n").encode())
    except OSError:
        pass


def _prctl(option: int, value: int) -> bool:
    return _LIBC is not None and hasattr(_LIBC, "prctl") and _LIBC.prctl(option, value, 0, 0, 0) == 0


def apply_limits() -> None:
    if MEMORY_BYTES:
        # RLIMIT_DATA, not RLIMIT_AS: CUDA reserves far more address space than it uses (PROT_NONE
        # mappings, which RLIMIT_DATA does not count), so an address-space limit stops torch from
        # seeing the GPU at all, while every allocation that takes memory still counts here.
        resource.setrlimit(resource.RLIMIT_DATA, (MEMORY_BYTES, MEMORY_BYTES))
    if CPU_SECONDS:
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 5))


# ---------------------------------------------------------------------------- what may be read

def python_folders() -> list[str]:
    """The Python installation, its site folders and this package: what the kernel must import from.

    sys.path entries outside the installation (a folder on PYTHONPATH, an old-style editable
    install pointing at a repository root) are left out on purpose: such a folder may hold
    the course itself. This package's own folder is added instead.
    """
    import sysconfig

    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    folders = set(prefixes) | {os.path.realpath(p) for p in sysconfig.get_paths().values() if p}
    for entry in sys.path:
        real = os.path.realpath(entry) if entry else ""
        if real and ("site-packages" in real or "dist-packages" in real or real.startswith(tuple(prefixes))):
            folders.add(real)
    folders.add(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # course_utils/
    return sorted(f for f in folders if os.path.exists(f))


def allowed_folders(job_folders: list[str]) -> tuple[str, ...]:
    """Prefixes (with a trailing slash) a graded kernel may read: everything else is reported."""
    system = [*SYSTEM_FOLDERS, "/dev", "/proc", "/sys"]
    places = [*python_folders(), *job_folders, *(os.path.realpath(p) for p in system)]
    return tuple(sorted({os.path.join(p, "") for p in places if p}))


def install_audit_hook(allowed: tuple[str, ...], files: set[str]) -> None:
    """Report every file opened outside `allowed` (and not one of `files`), and every new audit hook."""
    seen: set[str] = set()

    def hook(event: str, args: tuple) -> None:
        if event == "sys.addaudithook":
            record("tamper", "an audit hook was added")
            return
        if event != "open" or not args or not isinstance(args[0], (str, bytes)):
            return
        path = args[0].decode(errors="replace") if isinstance(args[0], bytes) else args[0]
        full = os.path.realpath(path)
        if full in seen or full in files or os.path.join(full, "").startswith(allowed):
            return
        seen.add(full)
        record("read-outside", full)

    sys.addaudithook(hook)


# ---------------------------------------------------------------------------- isolation (root, Linux)

def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    encode = (lambda s: None if s is None else s.encode())
    _check(_LIBC.mount(encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags), encode(data)),
           f"mount {target}")


def _bind(path: str, root: str, writable: bool) -> None:
    target = root + path
    if os.path.isdir(path):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()
    _mount(path, target, None, MS_BIND | MS_REC)
    if not writable:
        _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)


def enter_pid_namespace() -> bool:
    """A new PID namespace for this process's children; False where that is not possible."""
    if _LIBC is None or not sys.platform.startswith("linux") or os.geteuid() != 0:
        return False
    return _LIBC.unshare(CLONE_NEWPID) == 0


def build_root(root: str, readable: list[str], writable: list[str], connection: str) -> None:
    """Make `root` a tree of only the allowed folders, then chroot into it (in the new namespaces)."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here reaches the grading machine
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=16m")
    for name in SYSTEM_FOLDERS:
        if os.path.islink(name):  # merged /usr: /bin -> usr/bin
            os.symlink(os.readlink(name), root + name)
    # Fresh /tmp, /dev/shm and /proc first: the folders bound below may lie inside them.
    os.makedirs(root + "/tmp")
    _mount("tmpfs", root + "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
    _bind("/dev", root, writable=True)
    _mount("tmpfs", root + "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
    _bind("/sys", root, writable=False)
    os.makedirs(root + "/proc")
    _mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV)  # this PID namespace's processes only
    bound: list[str] = []
    for path in sorted(set(readable) | {os.path.realpath(p) for p in SYSTEM_FOLDERS if not os.path.islink(p)}):
        if os.path.exists(path) and not any(path.startswith(os.path.join(b, "")) for b in bound):
            _bind(path, root, writable=False)
            bound.append(path)
    for path in writable:
        _bind(path, root, writable=True)
    if connection:  # the kernel reads its connection file after the root has changed
        os.makedirs(os.path.dirname(root + connection), exist_ok=True)
        with open(connection, "rb") as source, open(root + connection, "wb") as copy:
            copy.write(source.read())
    cwd = os.getcwd()
    os.chroot(root)
    os.chdir(cwd)


def drop_privileges() -> None:
    """No capability left (no mount, chroot, ptrace or raw devices), and none to regain through exec."""
    for cap in range(64):
        _prctl(PR_CAPBSET_DROP, cap)
    _prctl(PR_SET_NO_NEW_PRIVS, 1)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    header, data = Header(0x20080522, 0), (Data * 2)()  # _LINUX_CAPABILITY_VERSION_3: all zero
    _check(_LIBC.capset(ctypes.byref(header), ctypes.byref(data)), "capset")


# ---------------------------------------------------------------------------- containment

def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(b")") + 2:].split()[1])
        children.setdefault(ppid, []).append(int(name))
    return children


def descendants(pid: int) -> list[int]:
    """Every living process below `pid` (orphans included, where `pid` is their subreaper)."""
    tree, found, todo = _children_map(), [], [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def end_leftovers() -> int:
    """Kill what is left below this process (a subreaper, or PID 1); how many processes that was."""
    ended = 0
    for _ in range(3):  # a process may fork while the others are being killed
        left = descendants(os.getpid())
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
        ended += len(left)
        _reap_all()
        if not left:
            break
    return ended


def become_subreaper() -> bool:
    """Orphans below this process become its children (Linux), so end_leftovers() finds them."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def _reap_all() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def supervise(kernel: int) -> int:
    """Reap children until `kernel` ends; end whatever it left behind; its exit code."""
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: os.kill(kernel, signal.SIGKILL))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the kernel's process group gets interrupts itself
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            return 1
        except InterruptedError:
            continue
        if pid == kernel:
            break
    ended = end_leftovers()
    if ended:
        record("outlived", ended)
    return os.waitstatus_to_exitcode(status)


def _connection_file(argv: list[str]) -> str:
    for flag in ("-f", "--f"):
        if flag in argv[:-1]:
            return os.path.abspath(argv[argv.index(flag) + 1])
    return next((os.path.abspath(a.split("=", 1)[1]) for a in argv if a.startswith(("--f=", "-f="))), "")


def _start_kernel(argv: list[str], allowed: tuple[str, ...], files: set[str]) -> None:
    """In the kernel's own process: the audit hook, then ipykernel (with the integrity watch)."""
    _prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
    os.environ.pop("JPY_PARENT_PID", None)  # its parent is this launcher (PID 1 inside the namespace)
    install_audit_hook(allowed, files)
    from ipykernel import kernelapp

    sys.argv = ["ipykernel_launcher", *argv, f"--IPKernelApp.exec_lines={KERNEL_STARTUP!r}".replace("'", '"'),
                "--IPKernelApp.log_level=ERROR"]
    kernelapp.launch_new_instance()


# Runs inside the kernel once IPython is up (IPKernelApp.exec_lines), before any cell.
KERNEL_STARTUP = "import course_utils.grader.integrity as _course_integrity; _course_integrity.start()"


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Run as __main__: make the kernel's own `import course_utils.grader.sandbox` find this very
    # module, with its report file already open.
    sys.modules.setdefault("course_utils.grader.sandbox", sys.modules[__name__])
    _prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))  # nbgrader gone: this job is over
    apply_limits()
    record("started", os.getpid())
    connection = _connection_file(argv)
    job = [os.path.realpath(p) for p in (os.getcwd(), HOME) if p]
    if HOME:  # the kernel's home, temporary files and caches: private to this job
        os.environ.update(HOME=HOME, TMPDIR=os.path.join(HOME, "tmp"))
        os.makedirs(os.environ["TMPDIR"], exist_ok=True)
    allowed = allowed_folders(job)
    files = {connection} if connection else set()

    isolated = enter_pid_namespace()
    if not isolated:
        record("isolation", "no private file system or process namespace (needs root on Linux); "
                            "reads outside the allowlist are reported, not prevented")
        become_subreaper()
        kernel = os.fork()
        if kernel == 0:
            _start_kernel(argv, allowed, files)
            os._exit(0)
        os._exit(supervise(kernel))

    # The namespaces: PID here (this process's children start in a new one), mount in the new PID 1,
    # so that this process, outside both, can remove the empty mount point afterwards.
    root = tempfile.mkdtemp(prefix=".sandbox-root-", dir=os.path.dirname(REPORT) or None)
    init = os.fork()
    if init == 0:  # PID 1 of the new namespace: builds the root, starts the kernel, ends what it leaves
        code = 1
        try:
            _prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
            try:
                _check(_LIBC.unshare(CLONE_NEWNS), "unshare")
                build_root(root, python_folders(), job, connection)
            except OSError as error:  # graded all the same, and said so
                record("isolation", f"could not build the private file system ({error})")
            kernel = os.fork()
            if kernel == 0:
                try:
                    drop_privileges()
                except OSError as error:
                    record("isolation", f"could not drop privileges ({error})")
                _start_kernel(argv, allowed, files)
                os._exit(0)
            code = supervise(kernel)
        finally:
            os._exit(code)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: os.kill(init, signal.SIGKILL))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            _, status = os.waitpid(init, 0)
            break
        except InterruptedError:
            continue
    try:
        os.rmdir(root)
    except OSError:
        pass
    os._exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
