"""Pre-started sandboxes: a graded kernel built and importing torch while the job before it runs.

For `course autograde`'s workers (jobs.py), so that a job does not wait while its kernel starts
and imports torch: the worker starts `python -m course_utils.grader.judge.sandbox --prestart FOLDER
NAME` while the job before runs. That launcher builds the same sandbox a cold start would, whose
kernel imports torch and ipykernel and then waits; the job's kernelspec launcher
(COURSE_SANDBOX_PRESTARTED names FOLDER) hands it over over a Unix socket in FOLDER: the notebook's
folder copied into FOLDER/NAME (bound read-only as the cold sandbox binds it), then the connection
file and the kernel's arguments. The pre-started launcher accepts one hand-over only, and only from
a launcher whose kernel environment, limits and folder name are exactly its own (`prestart_key`);
otherwise, or when nothing takes it, it ends its sandbox and the job's kernel starts cold. Its
report lines join the job's report.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Mapping

from course_utils.grader.judge.sandbox import report
from course_utils.grader.judge.sandbox.bubblewrap import find_bwrap, replace_symlink, start_bwrap
from course_utils.grader.judge.sandbox.layout import (
    HANDED_CONNECTION,
    SANDBOX_GID,
    SANDBOX_UID,
    SOCKETS,
    Layout,
    kernel_environment,
    sizes,
    socket_links,
    with_connection,
)
from course_utils.grader.judge.sandbox.limits import apply_limits, join_job_cgroup
from course_utils.grader.judge.sandbox.output import HEAD_BYTES, TAIL_BYTES
from course_utils.grader.judge.sandbox.processes import PR_SET_PDEATHSIG, prctl

PRESTARTED = "COURSE_SANDBOX_PRESTARTED"  # a pre-started sandbox's hand-over folder, for the job's launcher
PRESTART_WAIT_SECONDS = 900        # a pre-started sandbox that no job takes in this time ends itself
KERNEL_LOG_BYTES = HEAD_BYTES + TAIL_BYTES + (16 << 10)  # what a job reads of a pre-started sandbox's output


def prestart_key(environ: Mapping[str, str], folder_name: str) -> dict:
    """Everything a graded kernel's sandbox depends on besides the notebook and the connection: a
    pre-started sandbox serves only a launcher with exactly the same key, so that its kernel is the
    one a cold start would have made (environment, limits, the name of its folder, the Python)."""
    return {"environment": kernel_environment(environ), "sizes": list(sizes(environ)),
            "limits": [environ.get(n, "") for n in ("COURSE_SANDBOX_MEMORY_BYTES", "COURSE_SANDBOX_CPU_SECONDS",
                                                    "COURSE_SANDBOX_PROCESSES")],
            "fonts": environ.get("COURSE_SANDBOX_FONTS", ""), "folder": folder_name, "python": sys.executable,
            "uid": os.geteuid()}


def prestart(handover: str, name: str) -> int:
    """A sandbox built before its job: its kernel imports torch, then waits for one hand-over (see above).

    `handover`: a folder private to the grader (mode 0700) where the job's launcher finds the socket;
    `name`: the notebook folder's name (the assignment), part of the kernel's working directory.
    """
    prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))  # the worker gone: no job will come
    apply_limits()
    processes = join_job_cgroup()
    bwrap, _ = find_bwrap()
    if not bwrap:
        return 1  # nothing listens: the job's launcher starts its kernel cold, and reports why
    report.record("prestarted", os.getpid())
    staging, job = os.path.join(handover, name), os.path.join(handover, "job")
    for folder in (staging, job):  # 0755: root's sandbox reads them as uid 65534; the 0700 handover hides them
        os.makedirs(folder, exist_ok=True)
        os.chmod(folder, 0o755)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(os.path.join(handover, "socket"))
    listener.listen(1)
    layout = Layout(staging, {}, *sizes(os.environ), os.environ.get("COURSE_SANDBOX_FONTS", ""), handover)
    go_read, go_write = os.pipe()
    sandbox = start_bwrap(bwrap, layout, ["--go", str(go_read)], {}, pass_fds=(go_read,), processes=processes)
    proc = sandbox.proc
    status = os.fdopen(sandbox.status)
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
        replace_symlink(target, link)
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
    sandbox.finish()  # its output's tail in kernel.log, its findings in the report, before the job reads them
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
        if not ask({"connection": connection, "argv": with_connection(argv, HANDED_CONNECTION)}).get("started"):
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
    with contextlib.suppress(OSError), open(os.path.join(handover, "report.jsonl")) as lines:
        for line in lines:
            with contextlib.suppress(ValueError, KeyError, TypeError):
                item = json.loads(line)
                report.record(item["kind"], item["detail"])
    # Its output was capped as it was written (output.CappedOutput); read with a cap all the same.
    with contextlib.suppress(OSError), open(os.path.join(handover, "kernel.log"), "rb") as log:
        log.seek(max(0, os.fstat(log.fileno()).st_size - KERNEL_LOG_BYTES))
        sys.stderr.write(log.read(KERNEL_LOG_BYTES).decode(errors="replace"))
        sys.stderr.flush()
