"""Grades that hold against a hostile class: each attack is a submission graded by `course autograde`.

Every attacker hands in a wrong answer to notebook 01's `softmax` plus one way of getting
full marks for it anyway; honest students with unusual ids hand in right and wrong answers.
The class is graded once (module fixture); each test checks one kind of attack: either the
attack fails (the wrong answer loses points) or the row's flags name what it changed, and
honest students keep their grades with no flag.
"""
import copy
import csv
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import COURSE, run_course
from course_utils import ipynb
from course_utils.qa import submissions as S
from course_utils.qa.catalogue import load
from course_utils.qa.sample_class import write_class

AID = "01_queries_keys_values"
WRONG = next(e for e in load(COURSE, AID) if e.kind == "wrong" and e.grade_id == "softmax").path.read_text()
MARKER = "course-security-test-leftover"

# Looks for other students' graded notebooks or the solutions in every folder above the
# working directory, and takes the first `softmax` it finds.
STEAL = '''
import glob, json, os
def _steal():
    here = os.path.abspath(".")
    while True:
        for pattern in ("autograded/*/*/*.ipynb", "*/autograded/*/*/*.ipynb", "solutions/*/*.ipynb",
                        "submitted/*/*/*.ipynb", "*/*/autograded/*/*/*.ipynb"):
            for path in glob.glob(os.path.join(here, pattern)):
                try:
                    cells = json.load(open(path))["cells"]
                except (OSError, ValueError, KeyError):
                    continue
                for cell in cells:
                    source = "".join(cell.get("source", ""))
                    if source.lstrip().startswith("def softmax") and "NotImplementedError" not in source:
                        return path, source
        if here == os.path.dirname(here):
            return None, None
        here = os.path.dirname(here)
_found, _source = _steal()
if _source:
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

PAYLOADS = {
    "b_steals_graded_notebooks": STEAL,
    "c_ipython_input_transformer": "get_ipython().input_transformers_post.append(lambda lines: ['pass\\n'])",
    "c_ipython_ast_transformer": textwrap.dedent('''
        import ast
        class _Empty(ast.NodeTransformer):
            def visit_Module(self, node):
                return ast.Module(body=[], type_ignores=[])
        get_ipython().ast_transformers.append(_Empty())'''),
    "c_swallows_assertions": "get_ipython().set_custom_exc((Exception,), lambda *args, **kwargs: None)",
    "c_trace_function": textwrap.dedent('''
        import sys
        def _quiet(frame, event, arg):
            return None
        sys.settrace(_quiet)'''),
    "d_replaces_check_helpers": textwrap.dedent('''
        import course_utils.notebook.checks as _c
        for _name in dir(_c):
            if _name.startswith("expect"):
                setattr(_c, _name, lambda *args, **kwargs: None)'''),
    "d_rebinds_checks": textwrap.dedent('''
        class _Yes:
            def __getattr__(self, name):
                return lambda *args, **kwargs: True
        checks = _Yes()'''),
    "d_patches_while_graded": textwrap.dedent('''
        _wrong_softmax = softmax
        def softmax(x, dim=-1):
            torch.allclose = lambda *args, **kwargs: True
            return _wrong_softmax(x, dim=dim)'''),
    "d_patches_the_kernel": textwrap.dedent('''
        _kernel = get_ipython().kernel
        _original = _kernel.do_execute
        def _do_execute(code, *args, **kwargs):
            return _original("pass" if "checks." in code else code, *args, **kwargs)
        _kernel.do_execute = _do_execute'''),
    "e_switches_the_watch_off": "get_ipython().events.callbacks['post_run_cell'].clear()",
    "f_leaves_processes": LEAVE_PROCESSES,
}


def _attack(payload):
    return lambda r, s: S.with_answers(r, s, {"softmax": WRONG + "\n" + payload})


def _edited_metadata(r, s):
    nb = S.with_answers(r, s, {"softmax": WRONG})
    for cell in nb.cells:
        meta = ipynb.nbgrader_meta(cell)
        if meta.get("grade_id", "").endswith("_softmax"):
            meta.update(grade=False, points=0, solution=True, locked=False)
    return nb


def _deleted_tests(r, s):
    nb = S.with_answers(r, s, {"softmax": WRONG})
    nb.cells = [c for c in nb.cells if not ipynb.nbgrader_meta(c).get("grade_id", "").endswith("_softmax")]
    return nb


def _renamed_tests(r, s):
    nb = S.with_answers(r, s, {"softmax": WRONG})
    for cell in nb.cells:
        meta = ipynb.nbgrader_meta(cell)
        if meta.get("grade_id", "").endswith("_softmax"):
            meta["grade_id"] = "my_" + meta["grade_id"]
    return nb


HONEST = {
    "a_perfect": lambda r, s: S.perfect(r, s),
    "ana maría": lambda r, s: S.perfect(r, s),
    "学生": lambda r, s: S.perfect(r, s),
    "o'brien": lambda r, s: S.with_answers(r, s, {"softmax": WRONG}),
}
STUDENTS = {**HONEST, **{name: _attack(code) for name, code in PAYLOADS.items()},
            "g_edited_test_metadata": _edited_metadata, "g_deleted_test_cells": _deleted_tests,
            "g_renamed_test_cells": _renamed_tests}


def _leftovers():
    found = []
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and MARKER.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            continue
    return found


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    scratch = write_class(COURSE, [AID], tmp_path_factory.mktemp("security"), lambda _, release, solution: {
        name: make(copy.deepcopy(release), solution) for name, make in STUDENTS.items()})
    result = run_course("autograde", "--workers", "2", "--cell-timeout", "30", "--timeout", "120", cwd=scratch.root)
    assert result.returncode == 0, result.stdout + result.stderr
    with (scratch.root / "reports" / "grades.csv").open() as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    return rows, scratch, _leftovers()


def _full(row):
    return row["status"] == "graded" and float(row["score"]) == float(row["max_score"])


def _submission_flags(row):
    return [f for f in row["flags"].split("; ") if f and not f.startswith("not isolated")]


@pytest.mark.slow
def test_honest_students_with_unusual_ids_keep_their_grades_and_no_flag(graded):
    rows, _, _ = graded
    for name in ("a_perfect", "ana maría", "学生"):
        assert _full(rows[name]) and not _submission_flags(rows[name]), rows[name]
    assert not _full(rows["o'brien"]) and not _submission_flags(rows["o'brien"]), rows["o'brien"]


@pytest.mark.slow
def test_no_attack_turns_a_wrong_answer_into_unflagged_full_marks(graded):
    rows, _, _ = graded
    for name in STUDENTS:
        if name not in HONEST:
            row = rows[name]
            assert not _full(row) or _submission_flags(row), f"{name}: full marks and no flag: {row}"


@pytest.mark.slow
def test_graded_notebooks_of_classmates_cannot_be_read(graded):
    rows, scratch, _ = graded
    row = rows["b_steals_graded_notebooks"]
    assert not _full(row), "the thief found a classmate's answer"
    graded_nb = ipynb.read(scratch.autograded("b_steals_graded_notebooks", AID))
    printed = "".join(o.get("text", "") for c in graded_nb.cells for o in c.get("outputs", []))
    if os.geteuid() == 0:  # isolation needs root; elsewhere the flags are what remains
        assert "stolen from None" in printed, printed[-300:]
    # The same code, run on this machine without the sandbox, does find the answers.
    outside = subprocess.run([sys.executable, "-c", STEAL], cwd=scratch.root / "build", capture_output=True,
                             text=True, timeout=60)
    assert "stolen from None" not in outside.stdout and ".ipynb" in outside.stdout, outside.stdout + outside.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name, says", [
    ("c_ipython_input_transformer", "IPython input transformers"),
    ("c_ipython_ast_transformer", "IPython AST transformers"),
    ("c_swallows_assertions", "IPython custom exception handlers"),
    ("c_trace_function", "sys.trace function"),
    ("d_replaces_check_helpers", "course_utils.notebook.checks.expect"),
    ("d_rebinds_checks", "notebook name checks"),
    ("d_patches_while_graded", "torch.allclose"),
    ("d_patches_the_kernel", "do_execute"),
    ("e_switches_the_watch_off", "integrity checks stopped reporting"),
])
def test_tampering_with_what_the_tests_rely_on_is_flagged_by_name(graded, name, says):
    row = graded[0][name]
    assert row["status"] == "graded", row
    assert any("tampering" in f and says in f for f in _submission_flags(row)), row["flags"]


@pytest.mark.slow
def test_no_process_outlives_its_job(graded):
    rows, _, leftovers = graded
    assert leftovers == [], f"processes started by student code still run after grading: {leftovers}"
    assert any(f.startswith("processes: ") for f in _submission_flags(rows["f_leaves_processes"])), rows[
        "f_leaves_processes"]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["g_edited_test_metadata", "g_deleted_test_cells", "g_renamed_test_cells"])
def test_edited_or_deleted_test_cells_are_restored_graded_and_flagged(graded, name):
    row = graded[0][name]
    assert row["status"] == "graded", row
    assert not _full(row), f"{name}: the restored tests must still catch the wrong answer"
    assert any(f.startswith("edited graded cell: ") for f in _submission_flags(row)), row["flags"]
    assert "traceback" not in row["detail"].lower()
