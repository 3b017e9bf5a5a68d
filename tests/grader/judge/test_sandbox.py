"""The graded kernel's sandbox: what bwrap is asked for, and a real kernel started through it.

The unit tests read the launcher's choices (arguments, environment, diagnoses); the slow tests
start a kernel as `course autograde` does (a kernelspec pointing at the sandbox, Jupyter's ipc
transport) on this machine, as the account running the tests, and check from inside and outside
what a student's code meets. tests/grader/test_grading_security.py does the same through
`course autograde`, as root and as an ordinary account.
"""
import contextlib
import gc
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ROOT
from hostile import LoopbackListener, leftover_processes
from course_utils.grader.judge import sandbox
from course_utils.grader.judge.sandbox.processes import settled_heap

MARKER = "course-sandbox-test-leftover"
PACKAGE = sandbox.layout.package_folder()  # course_utils/, where this package is installed


def _layout(tmp_path, root=False, monkeypatch=None):
    folder = tmp_path / "autograded" / "ana" / "01_x"
    folder.mkdir(parents=True, exist_ok=True)
    connection = {"transport": "ipc", "ip": str(tmp_path / "k"), "shell_port": 1, "iopub_port": 2,
                  "stdin_port": 3, "control_port": 4, "hb_port": 5, "key": "secret"}
    if monkeypatch is not None:
        monkeypatch.setattr(os, "geteuid", lambda: 0 if root else 1000)
    return sandbox.Layout(str(folder), connection, 16 << 20, 8 << 20, 4 << 20)


def _options(args, option):
    return [args[i + 1:i + 3] if option in ("--ro-bind", "--symlink", "--dev-bind-try", "--ro-bind-try") else
            args[i + 1] for i, a in enumerate(args) if a == option]


def test_an_ordinary_account_gets_user_namespaces_and_root_drops_to_the_sandbox_uid(tmp_path, monkeypatch):
    args = _layout(tmp_path, root=False, monkeypatch=monkeypatch).arguments({}, 9)
    for flag in ("--unshare-user", "--disable-userns", "--unshare-pid", "--unshare-net", "--unshare-ipc",
                 "--die-with-parent", "--clearenv"):
        assert flag in args
    assert args[args.index("--uid") + 1] == str(sandbox.SANDBOX_UID)
    args = _layout(tmp_path, root=True, monkeypatch=monkeypatch).arguments({}, 9)
    assert "--unshare-user" not in args and args[args.index("--cap-drop") + 1] == "ALL"
    assert set(_options(args, "--cap-add")) == {"CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_DAC_READ_SEARCH"}, \
        "what the supervisor needs to copy the notebook in and become the sandbox uid, nothing else"
    nested = sandbox.nested_arguments("/home/student/01_x")
    assert "--unshare-user" in nested and nested[nested.index("--uid") + 1] == str(sandbox.SANDBOX_UID), \
        "as that uid, a user namespace of its own"


def test_the_kernel_sees_only_what_grading_needs(tmp_path, monkeypatch):
    layout = _layout(tmp_path, monkeypatch=monkeypatch)
    args = layout.arguments({"/etc/passwd": 7}, 9)
    read_only = {source: target for source, target in _options(args, "--ro-bind")}
    assert "/etc" not in read_only and not any(s.startswith("/etc/") for s in read_only), "no /etc/shadow, no keys"
    assert all(t.startswith("/etc/") for _, t in _options(args, "--ro-bind-try") if t != "/sys")
    assert str(tmp_path) not in " ".join(read_only.values()), "the job's folders appear only as the staging copy"
    assert read_only[layout.host_folder] == f"{sandbox.STAGING}/notebook"
    assert not any(s in ("/home", "/root", os.path.expanduser("~")) for s in read_only), "no home folder whole"
    sized = {args[i + 3]: int(args[i + 1]) for i, a in enumerate(args) if a == "--size"}
    assert sized == {"/dev/shm": 4 << 20, "/tmp": 8 << 20, sandbox.HOME: 8 << 20, layout.folder: 16 << 20,
                     sandbox.SOCKETS: 1 << 20}, "every place the kernel may write has a size"
    assert _options(args, "--remount-ro") == ["/dev", "/"], "nothing may be written beside those places"


def test_a_python_under_tmp_is_bound_over_the_private_tmp_not_hidden_by_it(tmp_path, monkeypatch):
    monkeypatch.setattr(sandbox.layout, "python_folders", lambda: ["/tmp/ci/course/.venv"])
    args = _layout(tmp_path, monkeypatch=monkeypatch).arguments({}, 9)
    assert args.index("/tmp/ci/course/.venv") > args.index("--tmpfs") + args[args.index("--tmpfs"):].index("/tmp")
    assert ["--chmod", "0755", "/tmp/ci"] == args[args.index("/tmp/ci") - 2:args.index("/tmp/ci") + 1]


def test_the_kernel_connects_over_unix_sockets_linked_into_the_sandbox(tmp_path, monkeypatch):
    layout = _layout(tmp_path, monkeypatch=monkeypatch)
    assert layout.kernel_connection()["ip"] == f"{sandbox.SOCKETS}/k" and layout.kernel_connection()["key"] == "secret"
    links = layout.socket_links(4321)
    assert links[f"{tmp_path / 'k'}-3"] == f"/proc/4321/root{sandbox.SOCKETS}/k-3" and len(links) == 5


def test_the_kernel_gets_none_of_the_graders_environment(monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", "the-instructors-token")
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    env = sandbox.kernel_environment(os.environ)
    assert "JUPYTERHUB_API_TOKEN" not in env and env["NBGRADER_EXECUTION"] == "autograde"
    assert env["OMP_NUM_THREADS"] == "1" and env["HOME"] == sandbox.HOME and env["TMPDIR"] == "/tmp"


def test_find_bwrap_takes_the_wheels_bubblewrap_and_refuses_an_old_one(monkeypatch):
    path, problem = sandbox.find_bwrap()
    assert path and not problem, problem
    monkeypatch.setattr(sandbox.bubblewrap, "_bwrap_version", lambda path: (0, 8))
    path, problem = sandbox.find_bwrap()
    assert path is None and "older than 0.10" in problem and "pip install" in problem


@pytest.mark.parametrize("settings, says", [
    ({"/proc/sys/kernel/unprivileged_userns_clone": "0"}, "kernel.unprivileged_userns_clone=1"),
    ({"/proc/sys/user/max_user_namespaces": "0"}, "user.max_user_namespaces"),
    ({"/proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1"}, "apparmor_restrict_unprivileged_userns=0"),
    ({}, ""),
])
def test_without_user_namespaces_the_flag_names_the_setting_to_change(settings, says):
    said = sandbox.why_no_user_namespaces(read=lambda path: settings.get(path, ""))
    assert (says in said) if says else said == ""


@pytest.mark.parametrize("release, counted", [("6.18.44-fc-v595", True), ("5.14.0-362.el9.x86_64", True),
                                               ("5.10.0-28-amd64", False), ("4.19.0", False), ("odd", False)])
def test_a_process_limit_per_sandbox_is_set_only_where_linux_counts_it_per_user_namespace(release, counted):
    from course_utils.grader.judge.sandbox.limits import counts_per_namespace

    assert counts_per_namespace(release) is counted


def test_what_a_kernel_makes_before_its_job_is_frozen_out_of_the_collector_which_runs_again_after():
    frozen = gc.get_freeze_count()
    with pytest.raises(RuntimeError), settled_heap():
        assert not gc.isenabled(), "no collection while the kernel imports"
        made = [[] for _ in range(1000)]
        raise RuntimeError("an import that failed")
    assert gc.isenabled(), "the student's code runs with the collector on, even after a failed import"
    assert gc.get_freeze_count() >= frozen + len(made)


def test_leftover_processes_are_ended_and_each_counted_once():
    """A detached process and a daemon's grandchild, below a subreaper: two processes, whatever the rounds."""
    code = f'''
import os, subprocess, sys, time
from course_utils.grader.judge import sandbox
sandbox.become_subreaper()
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)  # {MARKER}"], start_new_session=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)  # {MARKER}"])
    os._exit(0)
time.sleep(1.0)
print(len(sandbox.end_leftovers()))
'''
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert done.stdout.strip() == "2", done.stdout + done.stderr
        assert not leftover_processes(MARKER)
    finally:  # a failure here must not leave sleepers for the tests that look for leftovers
        for pid in leftover_processes(MARKER):
            os.kill(pid, signal.SIGKILL)


def test_the_sandboxs_stdout_and_stderr_reach_the_log_capped_with_their_beginning_and_end(tmp_path):
    """What a kernel writes to fd 1 and 2 (not the notebook's output): the first bytes as they come, the
    last at the end, a line saying how much was left out between; nothing else reaches the disk."""
    from course_utils.grader.judge.sandbox.output import CappedOutput

    log = os.open(tmp_path / "log", os.O_WRONLY | os.O_CREAT)
    output = CappedOutput(sink=log, head=1000, tail=500)
    writer = os.fdopen(os.dup(output.write_fd), "wb")
    writer.write(b"begin\n" + b"x" * (50 << 20) + b"\nthe end\n")
    writer.close()
    output.finish()
    os.close(log)
    written = (tmp_path / "log").read_bytes()
    assert written.startswith(b"begin\n") and written.endswith(b"\nthe end\n") and len(written) < 1700
    assert f"[... {(50 << 20) + 15 - 1500} bytes of the graded kernel's output left out by the grader ...]".encode() \
        in written


def test_the_launcher_relays_only_what_a_supervisor_reports(tmp_path, monkeypatch):
    """A kernel that reached the supervisor's report pipe could not add a flag of another kind to the report."""
    monkeypatch.setenv(sandbox.REPORT, str(tmp_path / "report.jsonl"))
    read, write = os.pipe()
    thread = sandbox.report.relay(read)
    lines = [{"kind": "storage", "detail": "tmp"}, {"kind": "restored", "detail": "forged"},
             {"kind": "started", "detail": 1}, {"kind": "outlived", "detail": [7]}]
    os.write(write, b"".join(json.dumps(line).encode() + b"\n" for line in lines) + b"not json\n" + b"y" * 100_000)
    os.close(write)
    thread.join(10)
    assert [json.loads(line) for line in (tmp_path / "report.jsonl").read_text().splitlines()] == [lines[0], lines[3]]


# ---------------------------------------------------------------------------- a real kernel


@contextlib.contextmanager
def _kernel(tmp_path, **env):
    """A kernel started as `course autograde` starts one; yields run(code) -> its printed output."""
    from jupyter_client import KernelManager

    spec = tmp_path / "jupyter" / "kernels" / "graded"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "course_utils.grader.judge.sandbox", "-f", "{connection_file}"],
        "display_name": "graded", "language": "python"}))
    folder = tmp_path / "autograded" / "ana" / "01_x"
    folder.mkdir(parents=True)
    (folder / "data.txt").write_text("a file of the assignment\n")
    sockets = tmp_path / "s"
    sockets.mkdir()
    report = tmp_path / "report.jsonl"
    environment = dict(os.environ, JUPYTER_PATH=str(tmp_path / "jupyter"), COURSE_SANDBOX_REPORT=str(report),
                       NBGRADER_EXECUTION="autograde", **env)
    km = KernelManager(kernel_name="graded", transport="ipc", ip=str(sockets / "kernel"))
    old = dict(os.environ)
    os.environ.update(environment)  # the kernelspec is looked up in this process's JUPYTER_PATH
    try:
        km.start_kernel(cwd=str(folder), env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        os.environ.clear()
        os.environ.update(old)
    client = km.client()
    client.start_channels()
    client.wait_for_ready(timeout=120)

    def run(code):
        out = []
        reply = client.execute_interactive(code, timeout=120, output_hook=lambda m: out.append(
            m["content"].get("text", "") if m["msg_type"] == "stream" else ""))
        assert reply["content"]["status"] == "ok", reply["content"]
        return "".join(out)

    try:
        yield run, report
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=False)


FORK_BOMB = '''
import os, time
started = 0
try:
    for _ in range(300):
        if os.fork() == 0:
            time.sleep(3)
            os._exit(0)
        started += 1
except OSError as error:
    print("refused:", error.strerror)
print("started", started)
'''


@pytest.mark.slow
def test_without_a_cgroup_the_supervisor_limits_the_sandboxs_processes_in_its_own_user_namespace(tmp_path):
    """RLIMIT_NPROC, set in the sandbox's user namespace, counts the sandbox's processes and threads
    alone (Linux 5.14 and later), not every process of the grading account or of uid 65534."""
    with _kernel(tmp_path, COURSE_SANDBOX_PROCESSES="48") as (run, report):
        printed = run(FORK_BOMB)
    assert "refused: Resource temporarily unavailable" in printed, printed
    assert 10 < int(printed.split("started ")[1].split()[0]) < 48, printed


def _sandbox_processes(report):
    """(real uid, {namespace: id}) of the supervisor and kernel the launcher started in bwrap, seen from outside."""
    [launcher] = [json.loads(line)["detail"] for line in report.read_text().splitlines()
                  if json.loads(line)["kind"] == "started"]
    found = []
    for pid in sandbox.descendants(launcher):
        with contextlib.suppress(OSError):
            argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            if b"--inside" in argv and not argv[0].endswith(b"bwrap"):  # bwrap itself starts as root
                uid = next(int(line.split()[1]) for line in open(f"/proc/{pid}/status") if line.startswith("Uid:"))
                found.append((uid, {ns: os.readlink(f"/proc/{pid}/ns/{ns}") for ns in ("user", "net", "pid", "ipc")}))
    return found


PROBE = '''
import os, errno
print("uid", os.getuid(), os.getgid())
print("caps", [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0])
print("dev", sorted(os.listdir("/dev")))
print("root", sorted(os.listdir("/")))
print("here", os.getcwd(), sorted(os.listdir(".")))
print("home", os.path.expanduser("~"))
print("secret", os.environ.get("COURSE_TEST_SECRET"))
print("debugger", hasattr(get_ipython().kernel, "debugger"))
for path in ("/etc/shadow", "/root/.ssh", "{root}/solutions", "{root}/gradebook.db", "{package}"):
    print("exists", path, os.path.exists(path))
for place in ("/dev/planted", "/planted"):
    try:
        open(place, "w").write("x")
        print("wrote", place)
    except OSError as error:
        print("refused", place, errno.errorcode[error.errno])
'''


@pytest.mark.slow
def test_a_kernel_runs_unprivileged_alone_with_a_private_dev_and_copy_of_its_folder(tmp_path):
    with _kernel(tmp_path, COURSE_TEST_SECRET="the-instructors-token") as (run, report):
        printed = run(PROBE.replace("{root}", str(ROOT)).replace("{package}", PACKAGE))
        inside = _sandbox_processes(report)
    assert inside, "the kernel runs below the launcher"
    expected_uid = sandbox.SANDBOX_UID if os.geteuid() == 0 else os.geteuid()
    assert {uid for uid, _ in inside} == {expected_uid}, "seen from the machine: nobody's root"
    assert all(ns["user"] != os.readlink("/proc/self/ns/user") and ns["net"] != os.readlink("/proc/self/ns/net")
               and ns["pid"] != os.readlink("/proc/self/ns/pid") and ns["ipc"] != os.readlink("/proc/self/ns/ipc")
               for _, ns in inside), "new user, network, PID and IPC namespaces"
    lines = dict(line.split(" ", 1) for line in printed.splitlines())
    assert lines["uid"] == f"{sandbox.SANDBOX_UID} {sandbox.SANDBOX_GID}" and lines["caps"] == "0000000000000000"
    assert set(eval(lines["dev"])) <= {"core", "fd", "full", "null", "ptmx", "pts", "random", "shm", "stderr", "stdin",
                                       "stdout", "tty", "urandom", "zero"} | {d for d in os.listdir("/dev")
                                                                             if d.startswith("nvidia")}
    assert f"exists {ROOT}/solutions False" in printed and f"exists {PACKAGE} True" in printed, \
        "of the course, only its package"
    assert lines["here"].startswith(f"{sandbox.HOME}/01_x") and "data.txt" in lines["here"]
    assert lines["debugger"] == "False", "nobody debugs a graded kernel (ipykernel's debugger imports debugpy)"
    assert lines["secret"] == "None" and "exists /etc/shadow False" in printed and "exists /root/.ssh False" in printed
    planted = os.path.exists("/dev/planted")
    with contextlib.suppress(OSError):  # a failing sandbox must not leave it for the next run
        os.remove("/dev/planted")
    assert "refused /dev/planted EROFS" in printed and "refused /planted EROFS" in printed
    assert not planted
    assert not any(json.loads(line)["kind"] == "isolation" for line in report.read_text().splitlines())


@pytest.mark.slow
def test_a_kernel_has_no_network_filled_places_are_reported_and_nothing_outlives_it(tmp_path):
    listener = LoopbackListener()
    code = f'''
import socket, subprocess, sys
try:
    socket.create_connection(("127.0.0.1", {listener.port}), timeout=3).sendall(b"the hidden tests")
    print("sent")
except OSError as error:
    print("no network:", error)
try:
    with open("/tmp/fill", "wb") as handle:
        for _ in range(64):
            handle.write(b"x" * 2**20)
except OSError as error:
    print("tmp:", error.strerror)
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)  # {MARKER}"], start_new_session=True)
'''
    with _kernel(tmp_path, COURSE_SANDBOX_TMP_BYTES=str(16 << 20)) as (run, report):
        printed = run(code)
    time.sleep(1)
    assert "no network:" in printed and listener.received == [], "the kernel's loopback is its own"
    assert "tmp: No space left on device" in printed
    found = [json.loads(line) for line in report.read_text().splitlines()]
    assert {"kind": "storage", "detail": "tmp"} in found
    assert sum(len(f["detail"]) for f in found if f["kind"] == "outlived") == 1, "one process, counted once"
    assert leftover_processes(MARKER) == [], "the PID namespace ends with its kernel"


@pytest.mark.slow
def test_without_bubblewrap_the_kernel_still_runs_and_the_report_says_why(tmp_path):
    code = f'''
import os, subprocess, sys
print("uid", os.getuid())
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)  # {MARKER}"], start_new_session=True)
'''
    with _kernel(tmp_path, COURSE_SANDBOX_BWRAP=str(tmp_path / "no-bwrap-here")) as (run, report):
        printed = run(code)
    time.sleep(1)
    assert f"uid {os.getuid()}" in printed, "unisolated: the grader's own account"
    found = [json.loads(line) for line in report.read_text().splitlines()]
    assert any(f["kind"] == "isolation" and "COURSE_SANDBOX_BWRAP" in f["detail"] for f in found), found
    assert sum(len(f["detail"]) for f in found if f["kind"] == "outlived") == 1
    assert leftover_processes(MARKER) == [], "the launcher is a subreaper: what the kernel left ends with it"
