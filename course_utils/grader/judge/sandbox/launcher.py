"""The graded kernel's launcher: the command of the kernelspec `course autograde` grades with.

For nbgrader (through jupyter_client, which starts the kernelspec's command) and so for every
graded notebook: `python -m course_utils.grader.judge.sandbox -f CONNECTION_FILE` runs, as the
grader's account, outside the sandbox. It first joins the job's cgroup (COURSE_SANDBOX_CGROUP, which
the grading worker made), so that everything below it is in it; the sandbox's stdout and stderr go
through a capped pipe (`output`) and the supervisor's findings through one it relays (`report`).
It takes a pre-started sandbox if one waits for this job, else starts bwrap with the sandbox's
supervisor (`supervisor.inside`) and links the kernel's Unix sockets, which live inside the
sandbox, to the paths jupyter_client connects to (through /proc/PID/root: a sandbox's files are
not visible from outside it). Where bubblewrap cannot run, the kernel runs without isolation under
a child subreaper, and the report says why.
"""
from __future__ import annotations

import contextlib
import json
import os
import signal
import sys

from course_utils.grader.judge.sandbox import report
from course_utils.grader.judge.sandbox.bubblewrap import find_bwrap, replace_symlink, start_bwrap, why_no_user_namespaces
from course_utils.grader.judge.sandbox.layout import STAGING, Layout, data_fd, kernel_environment, sizes, with_connection
from course_utils.grader.judge.sandbox.limits import apply_limits, join_job_cgroup
from course_utils.grader.judge.sandbox.output import CappedOutput
from course_utils.grader.judge.sandbox.prestart import PRESTARTED, prestart, run_prestarted
from course_utils.grader.judge.sandbox.processes import PR_SET_PDEATHSIG, become_subreaper, prctl
from course_utils.grader.judge.sandbox.supervisor import inside, start_kernel, supervise


def run_isolated(argv: list[str], connection_path: str, bwrap: str, processes: int = 0) -> int | None:
    """Run the kernel in bwrap; its exit code, or None where bwrap could not build the sandbox.

    `processes`: the supervisor's own process limit (0 where the job's cgroup holds it)."""
    with open(connection_path) as handle:
        connection = json.load(handle)
    if connection.get("transport") != "ipc":
        report.record("isolation", "the grader connected over TCP, which needs the network: KernelManager.transport "
                                   "must be 'ipc' (course_utils.grader.judge.preprocessors.configure_autograde sets it)")
        return None
    layout = Layout(os.getcwd(), connection, *sizes(os.environ), os.environ.get("COURSE_SANDBOX_FONTS", ""))
    kernel_argv = with_connection(argv, f"{STAGING}/connection.json")
    sandbox = start_bwrap(bwrap, layout, ["--", *kernel_argv], {
        f"{STAGING}/connection.json": data_fd(json.dumps(layout.kernel_connection()).encode())}, processes=processes)
    started, code = False, None
    with os.fdopen(sandbox.status) as status:
        for line in status:  # one JSON document per line: the child's pid first, its exit code last
            message = json.loads(line)
            if "child-pid" in message and not started:
                started = True
                for link, target in layout.socket_links(message["child-pid"]).items():
                    replace_symlink(target, link)
            if "exit-code" in message:
                code = message["exit-code"]
                break
    returned = sandbox.proc.wait()
    sandbox.finish()
    if code is not None:
        return code
    if started and returned != 1:  # killed from outside while it ran (a timeout): the kernel is gone
        return returned
    for link in layout.socket_links(0):  # the kernel that runs instead binds these paths itself
        with contextlib.suppress(FileNotFoundError):
            os.unlink(link)
    reason = why_no_user_namespaces() if not layout.root else ""
    report.record("isolation", f"bubblewrap could not build the sandbox (exit code {returned})"
                  + (f": {reason}" if reason else "; its message is in the grading log"))
    return None


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
    output = CappedOutput(sink=2)
    kernel = os.fork()
    if kernel == 0:
        report.close()  # the kernel never holds the report
        for fd in (1, 2):
            os.dup2(output.write_fd, fd)
        start_kernel(argv)
    output.close_writer()
    code = supervise(kernel)
    output.finish()
    return code


def main(argv: list[str] | None = None) -> None:
    """The command line: a kernel's launcher (`-f CONNECTION_FILE`), a supervisor (`--inside`, run by
    bwrap) or a pre-started sandbox (`--prestart FOLDER NAME`, run by a grading worker)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--inside"]:
        inside(argv[1:])
        return
    if argv[:1] == ["--prestart"]:
        os._exit(prestart(argv[1], argv[2]))
    prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL))  # nbgrader gone: this job is over
    apply_limits()
    processes = join_job_cgroup()
    report.record("started", os.getpid())
    connection = _connection_file(argv)
    handover = os.environ.get(PRESTARTED, "")
    code = run_prestarted(argv, connection, handover) if handover and connection else None
    bwrap, problem = find_bwrap() if code is None else (None, "")
    if code is None and bwrap and connection:
        code = run_isolated(argv, connection, bwrap, processes)
    if code is None:
        if problem:
            report.record("isolation", problem)
        code = run_unisolated(argv)
    os._exit(code)
