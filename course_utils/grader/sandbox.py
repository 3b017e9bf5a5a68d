"""The kernel launcher used while grading: limits, isolation and tamper evidence.

nbgrader runs student code in a plain Jupyter kernel, with the grader's permissions.
`course autograde` points the kernelspec `python3` at this module instead of
ipykernel, so each graded kernel:

- gets a memory limit (RLIMIT_DATA) and a CPU-time limit, so a hog or a spin kills only
  its own kernel;
- where the grader runs as root on Linux, runs in a private mount namespace in which the
  course's solutions, submissions, gradebook and every other grading job are hidden
  behind empty mounts (paths in COURSE_SANDBOX_HIDE);
- records, through a Python audit hook that student code cannot remove, every file
  opened outside the allowed places, and at exit whether torch or builtins were
  monkeypatched. Both land in COURSE_SANDBOX_REPORT as JSON lines, which the grader
  turns into the `flags` column.

Hand-written rather than a library: no maintained Python package offers per-kernel
isolation for nbgrader, and containers are not available on every grading machine.

Run as: python -m course_utils.grader.sandbox -f CONNECTION_FILE
"""
from __future__ import annotations

import ctypes
import json
import os
import resource
import sys

REPORT = os.environ.get("COURSE_SANDBOX_REPORT", "")
HIDE = [p for p in os.environ.get("COURSE_SANDBOX_HIDE", "").split(os.pathsep) if p]
MEMORY_BYTES = int(os.environ.get("COURSE_SANDBOX_MEMORY_BYTES", "0") or 0)
CPU_SECONDS = int(os.environ.get("COURSE_SANDBOX_CPU_SECONDS", "0") or 0)

CLONE_NEWNS = 0x00020000
MS_BIND, MS_REC, MS_PRIVATE, MS_RDONLY = 4096, 16384, 1 << 18, 1


_report_handle = None  # opened before the grading folders are hidden, kept open after


def _record(kind: str, detail: object) -> None:
    global _report_handle
    if not REPORT:
        return
    try:
        if _report_handle is None:
            _report_handle = open(REPORT, "a", buffering=1)
        _report_handle.write(json.dumps({"kind": kind, "detail": detail}) + "\n")
    except OSError:
        pass


def apply_limits() -> None:
    if MEMORY_BYTES:
        # RLIMIT_DATA, not RLIMIT_AS: CUDA reserves far more address space than it uses (PROT_NONE
        # mappings, which RLIMIT_DATA does not count), so an address-space limit stops torch from
        # seeing the GPU at all, while every allocation that takes memory still counts here.
        resource.setrlimit(resource.RLIMIT_DATA, (MEMORY_BYTES, MEMORY_BYTES))
    if CPU_SECONDS:
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 5))


def hide_paths(paths: list[str]) -> bool:
    """Mount empty filesystems over `paths` in a private mount namespace (root only).

    The kernel's working directory stays usable: a process keeps its cwd even when
    something is mounted over one of its parents.
    """
    if not paths or os.geteuid() != 0 or not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNS) != 0:
        return False
    libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None)
    hidden = True
    for path in paths:
        if os.path.isdir(path):
            ok = libc.mount(b"tmpfs", path.encode(), b"tmpfs", MS_RDONLY, b"size=4k") == 0
        elif os.path.isfile(path):
            ok = libc.mount(b"/dev/null", path.encode(), None, MS_BIND, None) == 0
        else:
            continue
        hidden &= ok
    return hidden


def _allowed_prefixes() -> tuple[str, ...]:
    """Python's own installation, this package, and system folders: not the course's files."""
    import sysconfig

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # course_utils/
    bases = {sys.prefix, sys.base_prefix, sys.exec_prefix, package}
    bases |= {path for path in sysconfig.get_paths().values() if path}
    system = ["/dev/", "/proc/", "/sys/", "/etc/", "/usr/", "/lib", "/opt/", "/run/", "/tmp/", "/var/tmp/",
              os.path.join(os.path.expanduser("~"), ".")]
    return tuple(sorted({os.path.join(os.path.realpath(b), "") for b in bases} | set(system)))


def install_audit_hook() -> None:
    """Report files opened outside the notebook's folder, Python's own files and the system's.

    Reads inside a hidden path (the course root's private parts, other jobs) are always
    reported, even where the path lies under an otherwise allowed place.
    """
    here = os.path.join(os.getcwd(), "")
    allowed = _allowed_prefixes()
    watched = tuple(os.path.join(os.path.realpath(p), "") for p in HIDE)
    seen = set()

    def hook(event, args):
        if event != "open" or not args or not isinstance(args[0], (str, bytes)):
            return
        path = args[0].decode(errors="replace") if isinstance(args[0], bytes) else args[0]
        full = os.path.join(os.path.realpath(path), "")  # with a trailing slash, like the prefixes
        if full.startswith(here) or full in seen:
            return
        if any(full.startswith(w) for w in watched) or not full.startswith(allowed):
            seen.add(full)
            _record("read-outside", full.rstrip("/") or "/")

    sys.addaudithook(hook)


def watch_integrity() -> None:
    """Record torch/builtins functions that stop being the originals.

    Checked after every cell (an IPython event) and at exit, so a patch made and undone
    inside one answer cell is still seen when the cell ends.
    """
    import atexit
    import builtins

    import torch

    watched = {
        "torch.allclose": (torch, "allclose"), "torch.isclose": (torch, "isclose"),
        "torch.equal": (torch, "equal"), "torch.softmax": (torch, "softmax"),
        "torch.matmul": (torch, "matmul"), "torch.Tensor.__eq__": (torch.Tensor, "__eq__"),
        "torch.testing.assert_close": (torch.testing, "assert_close"),
        "torch.nn.functional.scaled_dot_product_attention": (torch.nn.functional,
                                                              "scaled_dot_product_attention"),
        "builtins.isinstance": (builtins, "isinstance"), "builtins.type": (builtins, "type"),
        "builtins.print": (builtins, "print"), "builtins.open": (builtins, "open"),
    }
    originals = {name: getattr(owner, attr) for name, (owner, attr) in watched.items()}
    reported = set()

    def check(*_):
        for name, (owner, attr) in watched.items():
            if getattr(owner, attr, None) is not originals[name] and name not in reported:
                reported.add(name)
                _record("monkeypatch", name)

    atexit.register(check)
    try:
        from IPython import get_ipython

        shell = get_ipython()
        if shell is not None:
            shell.events.register("post_run_cell", check)
    except ImportError:
        pass


# Runs inside the kernel once IPython is up (IPKernelApp.exec_lines), before any cell.
KERNEL_STARTUP = "import course_utils.grader.sandbox as _course_sandbox; _course_sandbox.watch_integrity()"


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Run as __main__: make the kernel's own `import course_utils.grader.sandbox` find this very
    # module, with its report file already open (the file is hidden from then on).
    sys.modules.setdefault("course_utils.grader.sandbox", sys.modules[__name__])
    apply_limits()
    _record("started", os.getpid())
    if HIDE and not hide_paths(HIDE):
        _record("isolation", "could not hide the course's files (not root, or no mount namespaces)")
    install_audit_hook()
    from ipykernel import kernelapp

    sys.argv = ["ipykernel_launcher", *argv, f"--IPKernelApp.exec_lines={KERNEL_STARTUP!r}".replace("'", '"'),
                "--IPKernelApp.log_level=ERROR"]
    kernelapp.launch_new_instance()


if __name__ == "__main__":
    main()
