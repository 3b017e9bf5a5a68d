"""The sandbox's supervisor: PID 1 inside, it sets the sandbox up, runs the kernel, and ends what it leaves.

For the sandbox's launchers, whose bwrap runs it (`python -m course_utils.grader.judge.sandbox
--inside ...`). It copies the notebook's folder in (as root: then drops to uid 65534 and starts
itself again in a user namespace of its own, through a second, unprivileged bwrap), forks the
kernel, and when the kernel ends counts and ends what it left behind and reports the places it
filled. bubblewrap offers neither the count nor root's drop to another uid (it maps a uid, never
changes one), so this much is the course's own.

The kernel runs as the supervisor's uid and sees its /proc/PID: the supervisor makes itself not
dumpable, which closes its /proc/PID/fd (its report pipe) to the kernel, and its findings go to a
pipe that the launcher outside relays, never to the report itself. Where no cgroup holds the job,
it sets the sandbox's process limit (RLIMIT_NPROC) once it is in the sandbox's own user namespace.

A pre-started sandbox's supervisor forks a kernel that imports torch, ipykernel and pyplot
(`_preload`, with the garbage collector paused and then frozen: `settled_heap`) and waits for its
job; at the hand-over it copies the job's notebook folder in and lets the kernel start.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys

from course_utils.grader.judge.sandbox import report
from course_utils.grader.judge.sandbox.bubblewrap import find_bwrap, why_no_user_namespaces
from course_utils.grader.judge.sandbox.layout import HOME, SANDBOX_GID, SANDBOX_UID, SOCKETS, STAGING, nested_arguments
from course_utils.grader.judge.sandbox.limits import limit_processes
from course_utils.grader.judge.sandbox.processes import (
    PR_SET_DUMPABLE,
    PR_SET_PDEATHSIG,
    become_subreaper,
    end_leftovers,
    prctl,
    settled_heap,
)


def _without_debugger() -> None:
    """ipykernel without its debugger: nobody debugs a graded kernel, and ipykernel imports debugpy
    (and pydevd, about a hundred modules: 45 ms of CPU in every kernel) only when it can."""
    sys.modules.setdefault("debugpy", None)


def _preload() -> None:
    """What every graded notebook imports first: imported while the job before still runs.

    Not torch's symbolic shapes (sympy, 0.2 s of CPU), which torch imports the first time anything
    runs nn.MultiheadAttention with a mask, torch._check_with or torch.broadcast_shapes: the graded
    runs of three notebooks of eleven do (03, 04 and 07, whose kernels import them when they get
    there, for the same 0.2 s), and the others would pay for them in every kernel. matplotlib's pyplot
    (a third of a second) reads its backend from MPLBACKEND when imported: ipykernel sets it to the
    inline backend as it starts, unless it is set, so it is set here first to what ipykernel would set
    (pyplot imports the backend itself only when a figure is drawn, by then in the running kernel).
    """
    _without_debugger()
    with settled_heap():
        import ipykernel.kernelapp  # noqa: F401
        import torch  # noqa: F401

        os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
        import matplotlib.pyplot  # noqa: F401


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
        _become_kernel()
        os.close(go_fd)
        os.close(ready_write)
        with contextlib.suppress(Exception):
            _preload()
        message = _read_all(ready_read)
        if not message:  # never handed over: it ends unused
            os._exit(1)
        start_kernel(json.loads(message))
    os.close(ready_read)
    message = _read_all(go_fd)
    os.close(go_fd)
    if message:
        shutil.copytree(f"{STAGING}/notebook", folder, dirs_exist_ok=True, symlinks=True)
        os.write(ready_write, message)
    os.close(ready_write)
    return kernel


def inside(argv: list[str]) -> None:
    """PID 1 of the sandbox: set up as the sandbox user, run the kernel, end what it leaves behind.

    `argv`: the fd of its report pipe, its process limit (0: the job's cgroup holds it), the
    notebook's folder, then `--go FD` (a pre-started sandbox's hand-over pipe) or `--` and the
    kernel's arguments.
    """
    report_fd, processes, folder, marker, *kernel_argv = argv
    go_fd = int(kernel_argv[0]) if marker == "--go" else None  # a pre-started sandbox: the hand-over's pipe
    # Not dumpable: its /proc/PID/fd, where its report pipe is, is then closed to the kernel, which
    # runs as the same uid (and the kernel cannot ptrace it). The kernel makes itself dumpable again.
    prctl(PR_SET_DUMPABLE, 0)
    report.write_to(int(report_fd))
    own_namespace = os.getuid() != 0  # bwrap made this user namespace for this sandbox alone
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
        report.record("isolation", f"no user namespace of its own (uid {SANDBOX_UID}, otherwise isolated): "
                      + (unavailable or "no bubblewrap inside the sandbox"))
    elif not os.listdir(folder):
        _copy_in(folder)
    if own_namespace:  # here RLIMIT_NPROC counts this sandbox's processes alone (see limits)
        limit_processes(int(processes))
    become_subreaper()  # PID 1 already is one; under root's nested bwrap, PID 1 is bwrap
    places = {folder: "folder", "/tmp": "tmp", HOME: "home", "/dev/shm": "shm"}  # as jobs.STORAGE names them
    if go_fd is not None:
        kernel = _prestarted_kernel(go_fd, folder)
    else:
        kernel = os.fork()
        if kernel == 0:
            _become_kernel()
            start_kernel(kernel_argv)
    code = supervise(kernel)
    for path, name in places.items():
        if _full(path):
            report.record("storage", name)
    os._exit(code)


def _become_kernel() -> None:
    """In the kernel's process, forked from the supervisor: none of the supervisor's handles, and an
    ordinary (dumpable) process again, whose children may read each other's /proc as usual."""
    report.close()  # the kernel never holds the report pipe: it could forge findings
    prctl(PR_SET_DUMPABLE, 1)


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


def start_kernel(argv: list[str]) -> None:
    """In the kernel's own process: ipykernel, with interrupts its own."""
    code = 1
    try:
        os.environ.pop("JPY_PARENT_PID", None)  # its parent is the supervisor, not jupyter_client's process
        signal.signal(signal.SIGINT, signal.default_int_handler)
        prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))
        _without_debugger()
        from ipykernel import kernelapp

        sys.argv = ["ipykernel_launcher", *argv, "--IPKernelApp.log_level=ERROR"]
        app = kernelapp.IPKernelApp.instance()   # as kernelapp.launch_new_instance, but its set-up settled
        with settled_heap():
            app.initialize()
        app.start()
        code = 0
    except BaseException:  # noqa: BLE001  (os._exit below would swallow it)
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


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
        report.record("outlived", ended)
    return os.waitstatus_to_exitcode(status)
