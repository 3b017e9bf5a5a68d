"""Hard limits per job, through `course autograde` as root and as an ordinary account.

A small class of notebook 01 is graded twice (module fixture, one run per grader): as root, and as
an ordinary account to which, as an administrator would, root gave a cgroup of its own (cgroup v1
folders it owns here; systemd's `Delegate=` does the same on cgroup v2). Besides an honest student,
the class holds three processes that each take a large share of the job's memory, a fork bomb, a
notebook that writes hundreds of MB to its process's stdout and stderr, a submission that is a link
to a classmate's notebook (and a student folder that is one), and a kernel that tries to write into
every file descriptor of every process it can see. For both graders: what reached a limit says so
in its row and costs only its author; the job's memory and processes stayed under their limits all
together (read from the job's cgroup while it ran); the grader's own memory and its disk stayed
small; nothing forged reached the report. A job without a cgroup (switched off) says so in its row,
and its processes are still bounded per sandbox.
"""
import copy
import csv
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import nbformat
import pytest

from accounts import ACCOUNT_PATH, add_account, give, opened_for_everyone, remove_accounts, require_root, undo
from conftest import COURSE, ROOT
from course_utils import ipynb
from course_utils.grader.engine import jobs
from course_utils.grader.engine.jobs import GradeJob, Limits
from course_utils.grader.engine.records import GradeRecord
from course_utils.grader.judge.sandbox import cgroups, descendants
from course_utils.qa import submissions as S
from course_utils.qa.sample_class import write_class

AID = "01_queries_keys_values"
ACCOUNT = "ag-limits"
MEMORY_GB, PROCESSES = 1, 64
LIMITS = ["--cell-timeout", "60", "--timeout", "150", "--memory-gb", str(MEMORY_GB), "--processes", str(PROCESSES),
          "--workers", "2"]
FLOOD_MB = 400   # written to the kernel's stdout and stderr

# Three processes (the kernel and two children) of 400 MB each: 1.2 GB, over the job's 1 GB together,
# though each is far under the 1 GB of data a process may have (the children fork before anything is
# allocated, so that none inherits another's share).
MEMORY = '''
import os, time
_children = []
for _ in range(2):
    _pid = os.fork()
    if _pid == 0:
        try:
            _theirs = b"c" * (400 << 20)
            time.sleep(3)
        finally:
            os._exit(0)
    _children.append(_pid)
_mine = b"k" * (400 << 20)
time.sleep(3)
for _pid in _children:
    os.waitpid(_pid, 0)
del _mine
'''

# Every process forks, seven levels deep: 128 processes where nothing limits them (each stops at its
# first refused fork: a refused fork costs a copy of the process's page tables). Then it counts the
# tasks (processes and threads) of its sandbox, which its PID namespace shows it.
FORK_BOMB = '''
import os, time
def _bomb(levels):
    for _ in range(levels):
        try:
            if os.fork() == 0:
                try:
                    _bomb(levels - 1)
                    time.sleep(1)
                finally:
                    os._exit(0)
        except OSError:
            return
_bomb(7)
time.sleep(1)
_tasks = 0
for _pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        _tasks += len(os.listdir(f"/proc/{_pid}/task"))
    except OSError:
        pass
print("tasks", _tasks)
time.sleep(1)
'''

FLOOD = f'''
import os, sys
_block = b"x" * (1 << 20) + b"\\n"
for _ in range({FLOOD_MB * 3 // 4}):
    os.write(sys.stdout.fileno(), _block)   # ipykernel's copy of the process's own stdout
for _ in range({FLOOD_MB // 4}):
    os.write(sys.stderr.fileno(), _block)
os.write(1, b"y" * (1 << 20))               # fd 1 itself: ipykernel sends it to the notebook, and copies it out
'''

# Prints through the kernel's own channel (ipykernel's iopub, which nbgrader collects into the notebook):
# many small messages, then single messages of tens of MB, 300 MB in all.
PRINTS = '''
_line = "z" * 1023
for _ in range(150 * 1024):
    print(_line)
for _ in range(3):
    print("w" * (50 << 20))
'''

AFTER_PRINTS = 'print("printed after the flood")'

# Writes a forged finding into every fd of every other process it can see (as an ordinary account the
# kernel runs as the supervisor's uid), and would truncate any file it reached.
HANDLES = '''
import os
_reached = []
for _pid in [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
    try:
        _fds = os.listdir(f"/proc/{_pid}/fd")
    except OSError:
        continue
    for _fd in _fds:
        try:
            _handle = os.open(f"/proc/{_pid}/fd/{_fd}", os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            os.write(_handle, b'{"kind": "restored", "detail": "forged by the kernel"}\\n')
            os.ftruncate(_handle, 0)
        except OSError:
            pass
        os.close(_handle)
        _reached.append((_pid, _fd))
print("reached", _reached)
'''


def _perfect_and(*codes):
    """A perfect notebook with a cell of each of `codes` after the hidden softmax tests."""
    def make(release, solution):
        nb = S.perfect(release, solution)
        at = next(i for i, c in enumerate(nb.cells) if ipynb.nbgrader_meta(c).get("grade_id") == "hidden_softmax")
        nb.cells[at + 1:at + 1] = [nbformat.v4.new_code_cell(code) for code in codes]
        return nb
    return make


def _edits_a_test_and(code):
    """Edits a test cell (which the grader puts back and flags), then runs `code`."""
    def make(release, solution):
        nb = _perfect_and(code)(release, solution)
        test = next(c for c in nb.cells if ipynb.nbgrader_meta(c).get("grade_id", "").startswith("test_softmax"))
        test.source = "pass  # no test here"
        return nb
    return make


CLASS = {
    "a_honest": lambda r, s: S.perfect(r, s),
    "b_memory": _perfect_and(MEMORY),
    "c_fork_bomb": _perfect_and(FORK_BOMB),
    "d_floods_stdout": _perfect_and(FLOOD),
    "d_floods_its_cells": _perfect_and(PRINTS, AFTER_PRINTS),
    "e_links_to_a_honest": None,    # a link to a_honest's notebook
    "f_links_a_folder": None,       # a student folder that is a link to a_honest's
    "g_writes_to_handles": _edits_a_test_and(HANDLES),
}


class _Watch:
    """While grading runs: the peaks of the grader's job cgroups (memory, processes), read from outside,
    and the most the grader's temporary folder and the course root held on disk."""

    def __init__(self, grader, places):
        self.grader, self.places = grader, places
        self.memory = self.processes = self.disk = self.nbgrader = 0
        self.jobs = set()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _job_cgroups(self):
        owners = {str(pid) for pid in [self.grader.pid, *descendants(self.grader.pid)]}
        for folder in _course_folders():
            for name in _listdir(folder):
                if name.startswith("job-") and name.split("-")[1] in owners:
                    yield os.path.join(folder, name)

    def _run(self):
        while not self.done.is_set():
            for folder in self._job_cgroups():
                self.jobs.add(os.path.basename(folder))
                for name in ("memory.max_usage_in_bytes", "memory.peak", "memory.usage_in_bytes", "memory.current"):
                    self.memory = max(self.memory, _number(os.path.join(folder, name)))
                self.processes = max(self.processes, _number(os.path.join(folder, "pids.current")))
            self.disk = max(self.disk, sum(_size(place) for place in self.places))
            self.nbgrader = max([self.nbgrader, *self._nbgrader_peaks()])
            time.sleep(0.05)

    def _nbgrader_peaks(self):
        """The peak resident memory (bytes) of each nbgrader run (a fork of the grader's fork server) now alive."""
        for pid in descendants(self.grader.pid):
            try:
                if b"nbgrader_main" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                    continue
                status = Path(f"/proc/{pid}/status").read_text()
            except OSError:
                continue
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    yield int(line.split()[1]) << 10

    def stop(self):
        self.done.set()
        self.thread.join()


def _course_folders():
    """The course's cgroup folders of this test's graders: root's, and those in a delegated cgroup."""
    for hierarchy in cgroups.place()[0]:
        own = os.path.dirname(hierarchy.folder)
        yield hierarchy.folder
        for name in _listdir(own):
            if name.startswith("ag-delegated-"):
                yield os.path.join(own, name, cgroups.FOLDER)


def _listdir(folder):
    try:
        return os.listdir(folder)
    except OSError:
        return []


def _printed(scratch, student):
    return "".join(o.get("text", "") for c in ipynb.read(scratch.autograded(student, AID)).cells
                   for o in c.get("outputs", []))


def _tasks(printed):
    return int(printed.split("tasks ", 1)[1].split()[0])


def _number(path):
    try:
        return int(Path(path).read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def _size(folder):
    total = 0
    for top, _, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(top, name)).st_blocks * 512
            except OSError:
                pass
    return total


def _delegated_cgroups(account):
    """As root: a cgroup of the account's own beside the course's folder in each hierarchy, as an
    administrator gives one (the account owns it and may make cgroups below it; systemd's
    Delegate=yes does the same on cgroup v2); the cgroups the account's grader starts in."""
    start = []
    for hierarchy in cgroups.place()[0]:
        folder = os.path.join(os.path.dirname(hierarchy.folder), f"ag-delegated-{account}")
        os.makedirs(folder, exist_ok=True)
        subprocess.run(["chown", "-R", f"{account}:{account}", folder], check=True)
        start.append(folder)
    return start


def _remove_delegated_cgroups(account):
    """What `_delegated_cgroups` made, and anything the account's grader left in it, deepest first."""
    for hierarchy in cgroups.place()[0]:
        folder = os.path.join(os.path.dirname(hierarchy.folder), f"ag-delegated-{account}")
        for top, _, _ in os.walk(folder, topdown=False):
            cgroups.JobCgroup(hierarchy.version, {"any": top}).remove()


def _graded(where, scratch, account=None):
    """Grade the class as root, or as `account` from cgroups of its own; (rows, the grader's peak RSS
    in KB, the watch)."""
    tmp = where / "grader-tmp"
    tmp.mkdir()
    code = ("import atexit, resource, runpy, sys\n"
            "atexit.register(lambda: print('grader peak RSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,"
            " file=sys.stderr))\n"
            f"sys.argv = ['course', 'autograde', *{LIMITS!r}]\n"
            "runpy.run_module('course_utils', run_name='__main__')\n")
    command, env, start_in = [sys.executable, "-c", code], {**os.environ, "TMPDIR": str(tmp)}, []
    if account:
        give(where, account)
        start_in = _delegated_cgroups(account)
        command = [shutil.which("runuser") or "/usr/sbin/runuser", "-u", account, "--", *command]
        env = {"HOME": f"/home/{account}", "USER": account, "LOGNAME": account, "LANG": "C.UTF-8",
               "PATH": ACCOUNT_PATH, "TMPDIR": str(tmp)}

    def join_own_cgroups():   # as root, before runuser runs: the account's grader starts in its cgroups
        for folder in start_in:
            Path(folder, "cgroup.procs").write_text(str(os.getpid()))

    grader = subprocess.Popen(command, cwd=scratch.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, preexec_fn=join_own_cgroups)
    watch = _Watch(grader, [tmp, scratch.root])
    try:
        out, err = grader.communicate(timeout=900)
    finally:
        watch.stop()
    report = scratch.root / "reports" / "grades.csv"
    assert report.is_file(), \
        f"course autograde wrote no grades.csv (exit {grader.returncode}):\n{out[-4000:]}\n{err[-4000:]}"
    with report.open() as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert grader.returncode == 1, out + err   # the linked submissions are unmatched: someone has to act
    return rows, int(err.rsplit("grader peak RSS", 1)[1].split()[0]), watch


@pytest.fixture(scope="module", params=["root", "an ordinary account"])
def graded(request, tmp_path_factory):
    """The class graded by `request.param`: its rows, the grader's peak RSS (KB), the watch, the course root."""
    require_root("grading as root and as an ordinary account with a cgroup of its own")
    as_root = request.param == "root"
    where = tmp_path_factory.mktemp("limits") if as_root else add_account(ACCOUNT) / "course"
    opened = [] if as_root else opened_for_everyone([sys.executable, ROOT / ".venv", ROOT])
    try:
        def hand_in(_, release, solution):
            return {name: make(copy.deepcopy(release), solution) for name, make in CLASS.items() if make}

        scratch = write_class(COURSE, [AID], where, hand_in)
        honest = scratch.submitted("a_honest", AID)
        scratch.submitted("e_links_to_a_honest", AID).mkdir(parents=True)
        (scratch.submitted("e_links_to_a_honest", AID) / f"{AID}.ipynb").symlink_to(honest / f"{AID}.ipynb")
        scratch.submitted("f_links_a_folder", AID).parent.symlink_to(honest.parent)
        yield (*_graded(where, scratch, None if as_root else ACCOUNT), scratch)
    finally:
        if not as_root:
            remove_accounts(ACCOUNT)
            undo(opened)
            _remove_delegated_cgroups(ACCOUNT)


def _flags(row):
    return [f for f in row["flags"].split("; ") if f]


def _said(row):
    """A row whole, for a failed assertion (pytest would cut the dict before its detail)."""
    return f"{row['student_id']}: {row['status']} {row['score']}/{row['max_score']}, {row['detail']!r}, flags {row['flags']!r}"


@pytest.mark.slow
def test_an_honest_student_keeps_full_marks_with_no_flag(graded):
    row = graded[0]["a_honest"]
    assert row["status"] == "graded" and float(row["score"]) == float(row["max_score"]) > 0, row
    assert _flags(row) == [] and row["held"] == "" and row["detail"] == "all tests passed", row


@pytest.mark.slow
def test_every_job_ran_in_a_cgroup_of_its_own_that_was_removed(graded):
    rows, _, watch, _ = graded
    assert not [row for row in rows.values() if any(f.startswith(jobs.NOT_LIMITED) for f in _flags(row))], rows
    assert len(watch.jobs) >= 5, watch.jobs   # a cgroup per graded job (pre-started ones too)
    left = [name for folder in _course_folders() for name in _listdir(folder) if name in watch.jobs]
    assert left == [], "every job's cgroup is removed when its job ends"


@pytest.mark.slow
def test_memory_is_limited_for_all_of_a_jobs_processes_together(graded):
    rows, _, watch, _ = graded
    row = rows["b_memory"]
    assert "the job's memory limit (1 GB for all of the notebook's processes together" in row["detail"], row
    assert "--memory-gb" in row["detail"]
    assert 0 < watch.memory <= MEMORY_GB << 30, f"the job held {watch.memory >> 20} MB"


@pytest.mark.slow
def test_a_fork_bomb_is_bounded_by_the_jobs_process_limit(graded):
    rows, _, watch, scratch = graded
    row = rows["c_fork_bomb"]
    assert row["status"] == "graded", _said(row)
    assert PROCESSES // 2 < _tasks(_printed(scratch, "c_fork_bomb")) <= PROCESSES
    assert f"the job's limit of {PROCESSES} processes and threads" in row["detail"] and "--processes" in row["detail"]
    assert row["status"] == "graded" and float(row["score"]) == float(row["max_score"]), \
        "the notebook went on: its answers still count"
    assert PROCESSES // 2 < watch.processes <= PROCESSES, watch.processes


@pytest.mark.slow
def test_what_a_kernel_prints_to_its_own_stdout_fills_neither_the_disk_nor_the_graders_memory(graded):
    rows, peak_kb, watch, scratch = graded
    row = rows["d_floods_stdout"]
    assert row["status"] == "graded" and float(row["score"]) == float(row["max_score"]), _said(row)
    # Read whole, the flood alone would take the grader past FLOOD_MB; the grader's own peak (300 MB on
    # CI's machine, torch's functions and the verdicts' imports included) stays below it.
    assert peak_kb < FLOOD_MB << 10, f"the grader's peak RSS was {peak_kb >> 10} MB after {FLOOD_MB} MB were printed"
    assert watch.disk < 64 << 20, f"{watch.disk >> 20} MB on disk while grading"
    log = scratch.root / "build" / "grading" / "errors" / AID / "d_floods_stdout.log"
    assert not log.exists() or log.stat().st_size < 64 << 10


@pytest.mark.slow
def test_what_a_cell_prints_is_cut_while_it_is_collected(graded):
    """300 MB printed through the kernel's channel: nbgrader's process, which collects the notebook's outputs,
    keeps a cell's first characters and refuses the largest messages at its socket, so that its memory stays
    near what grading an honest notebook takes (the fork server's torch, shared, most of it), then connects
    to the kernel again for the cells after."""
    rows, _, watch, scratch = graded
    row = rows["d_floods_its_cells"]
    assert row["status"] == "graded" and float(row["score"]) == float(row["max_score"]), _said(row)
    assert "a cell printed more than 200000 characters" in row["detail"], row["detail"]
    assert "MB at once, which the grader refuses" in row["detail"], row["detail"]
    assert 0 < watch.nbgrader < 1 << 30, f"an nbgrader run reached {watch.nbgrader >> 20} MB"
    cells = ipynb.read(scratch.autograded("d_floods_its_cells", AID)).cells
    assert len(json.dumps(cells)) < 2 << 20
    after = next(c for c in cells if c.source == AFTER_PRINTS)
    assert [o.get("text") for o in after.outputs] == ["printed after the flood\n"], \
        "the cells after a refused message keep their output (the grader connects to the kernel again)"


@pytest.mark.slow
@pytest.mark.parametrize("name, says", [
    ("e_links_to_a_honest", f"{AID}.ipynb is a link, not a notebook of its own"),
    ("f_links_a_folder", "submitted/f_links_a_folder is a link to another folder"),
])
def test_a_link_to_a_classmates_work_is_unmatched_for_its_author_alone(graded, name, says):
    rows = graded[0]
    row = rows[name]
    assert row["status"] == "unmatched" and float(row["score"]) == 0 and says in row["detail"], row
    assert "hand in" in row["detail"]
    assert rows["a_honest"]["status"] == "graded" and _flags(rows["a_honest"]) == []


@pytest.mark.slow
def test_a_kernel_cannot_write_into_the_supervisors_handles_or_the_report(graded):
    rows, _, _, scratch = graded
    row = rows["g_writes_to_handles"]
    printed = _printed(scratch, "g_writes_to_handles")
    assert "reached []" in printed, printed[-500:]
    assert any(f.startswith("edited graded cell: test_softmax") for f in _flags(row)), row["flags"]
    assert not any("forged" in f for r in rows.values() for f in _flags(r)), "nothing forged reached a report"
    assert row["held"] == "yes"


@pytest.mark.slow
def test_without_a_cgroup_the_row_says_so_and_processes_stay_bounded_per_sandbox(tmp_path, monkeypatch):
    """As root with per-job cgroups switched off: the tightest per-process limits, said in the row's flags."""
    require_root("a sandbox's RLIMIT_NPROC in its own user namespace")
    monkeypatch.setenv("COURSE_GRADER_CGROUPS", "0")
    monkeypatch.setenv("COURSE_GRADER_PRESTART", "0")
    scratch = write_class(COURSE, [AID], tmp_path / "course", lambda _, release, solution: {
        "c_fork_bomb": CLASS["c_fork_bomb"](copy.deepcopy(release), solution)})
    job = GradeJob(AID, "c_fork_bomb", (scratch.submitted("c_fork_bomb", AID) / f"{AID}.ipynb").read_bytes(),
                   (scratch.root / "gradebook.db").read_bytes(), scratch.config_file.read_text(),
                   Limits(cell_seconds=60, job_seconds=150, processes=PROCESSES, threads=1),
                   release=scratch.release(AID).read_bytes())
    record = jobs.run_job(job)
    assert record.status == "graded" and record.score == record.max_score, record.detail + record.log
    [flag] = [f for f in record.flags if f.startswith(f"{jobs.NOT_LIMITED}: per-job cgroups are switched off")]
    assert not GradeRecord("ana", AID, "graded", flags=[flag]).held, "the machine's doing does not hold a grade"
    printed = "".join(o.get("text", "") for c in ipynb.reads(record.autograded).cells for o in c.get("outputs", []))
    assert PROCESSES // 2 < _tasks(printed) <= PROCESSES + 1, "RLIMIT_NPROC counts the sandbox's own user namespace"
