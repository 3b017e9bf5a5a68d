"""Class-scale autograding: hostile and broken submissions, resume after a kill, Dask, PostgreSQL.

One class of notebook-01 submissions is graded once (module fixture) with honest students
around every hostile one; each test then checks one case's row.
"""
import copy
import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from conftest import COURSE, run_course
from course_utils import ipynb
from course_utils.grader.engine.pipeline import error_log
from course_utils.qa import submissions as S
from course_utils.qa.catalogue import load
from course_utils.qa.sample_class import write_class

AID = "01_queries_keys_values"
# Wide margins both ways, since CI grades this class while other tests load both cores: an
# endless loop costs one cell limit plus a normal run (a few seconds alone, up to about 40 s
# under that load), and four answer cells that each sleep just under the cell limit add up to
# more than the submission limit however fast the machine.
CELL_SECONDS, JOB_SECONDS = 20, 70
LIMITS = ["--cell-timeout", str(CELL_SECONDS), "--timeout", str(JOB_SECONDS)]


def _append(nb, grade_id, code, before=False):
    cell = ipynb.answer_cells(nb)[grade_id]
    cell.source = code + "\n" + cell.source if before else cell.source + "\n" + code
    return nb


def _class(root, students):
    """A scratch root where each of {name: make(release, solution)} hands in notebook 01."""
    return write_class(COURSE, [AID], root, lambda _, release, solution: {
        name: make(copy.deepcopy(release), solution) for name, make in students.items()})


def _rows(root):
    with (Path(root) / "reports" / "grades.csv").open() as handle:
        return {row["student_id"]: row for row in csv.DictReader(handle)}


# A learner's mistake, not a forbidden shortcut (which the source screen flags).
WRONG = next(e for e in load(COURSE, AID) if e.kind == "wrong" and e.grade_id == "softmax" and "calls" not in e.name)


def honest_students():
    return {
        "a_perfect": lambda r, s: S.perfect(r, s),
        "a_wrong": lambda r, s: S.with_answers(r, s, {WRONG.grade_id: WRONG.path.read_text()}),
        "a_blank": lambda r, s: r,
    }


def _misnamed(root):
    folder = root / "submitted" / "l_misnamed" / AID
    folder.mkdir(parents=True)
    ipynb.write(S.perfect(ipynb.read(COURSE.release(AID)), ipynb.read(COURSE.solution(AID))), folder / "my copy.ipynb")


def _duplicate(r, s):
    nb = S.perfect(r, s)
    twin = copy.deepcopy(ipynb.answer_cells(nb)["softmax"])
    twin.id = "copied-cell"
    nb.cells.append(twin)
    return nb


def _without(grade_id, edit=None):
    def make(r, s):
        nb = S.perfect(r, s)
        if edit is None:
            nb.cells = [c for c in nb.cells if ipynb.nbgrader_meta(c).get("grade_id") != grade_id]
        else:
            next(c for c in nb.cells if ipynb.nbgrader_meta(c).get("grade_id") == grade_id).source = edit
        return nb
    return make


def _slow_everywhere(nb):
    """Each answer cell stays under the per-cell limit; together they pass the per-submission one."""
    for grade_id in ("softmax", "dot_product_scores", "soft_lookup", "QKVProjection"):
        _append(nb, grade_id, f"import time\ntime.sleep({CELL_SECONDS - 1})")
    return nb


# A right softmax that loops forever the first time it is called: when the grader's test calls it.
LOOPS_ONCE = '''
_right, _first = softmax, [True]
def softmax(x, dim=-1):
    if _first:
        _first.clear()
        while True:
            pass
    return _right(x, dim=dim)
'''

LIAR = '''
class Agreeable(torch.Tensor):
    def __eq__(self, other):
        return True

def softmax(x, dim=-1):
    """Returns zeros that claim to equal anything."""
    return torch.zeros_like(x).as_subclass(Agreeable)
'''

HOSTILE = {
    "b_endless_loop": lambda r, s: _append(S.perfect(r, s), "softmax", "while True:\n    pass", before=True),
    "b_slow_everywhere": lambda r, s: _slow_everywhere(S.perfect(r, s)),
    "b_loops_when_tested": lambda r, s: _append(S.perfect(r, s), "softmax", LOOPS_ONCE),
    "c_os_exit": lambda r, s: _append(S.perfect(r, s), "soft_lookup", "import os\nos._exit(1)"),
    "d_segfault": lambda r, s: _append(S.perfect(r, s), "soft_lookup", "import ctypes\nctypes.string_at(0)"),
    "e_system_exit": lambda r, s: _append(S.perfect(r, s), "softmax", "raise SystemExit(3)", before=True),
    "f_memory_hog": lambda r, s: _append(S.perfect(r, s), "softmax", "hog = bytearray(16 * 2**30)", before=True),
    "g_megabytes_of_output": lambda r, s: _append(S.perfect(r, s), "softmax", "print('x' * 20_000_000)"),
    "h_patches_allclose": lambda r, s: _append(S.with_answers(r, s, {WRONG.grade_id: WRONG.path.read_text()}),
                                               "softmax", "torch.allclose = lambda *a, **k: True\n"
                                               "torch.testing.assert_close = lambda *a, **k: None"),
    "h_lying_subclass": lambda r, s: S.with_answers(r, s, {"softmax": LIAR}),
    "i_reads_solutions": lambda r, s: _append(S.perfect(r, s), "softmax",
                                              "import glob\nleak = glob.glob('" + str(COURSE.root)
                                              + "/solutions/*/*')\n"
                                              "try:\n    open('" + str(COURSE.solution(AID)) + "').read()\n"
                                              "except OSError:\n    pass\n"
                                              "others = glob.glob('../../../*/*/*.ipynb') + glob.glob('"
                                              + str(COURSE.root) + "/submitted/*/*/*.ipynb')\n"
                                              "print(len(leak), len(others))"),
    "j_duplicate_grade_id": _duplicate,
    "k_truncated_json": lambda r, s: nbformat.writes(S.perfect(r, s)).encode()[:700],
    "k_not_json": lambda r, s: b"\x89PNG\r\n\x1a\n this is not a notebook",
    "m_deleted_test_cell": _without("test_softmax"),
    "m_edited_test_cell": _without("hidden_softmax", edit="print('hidden tests passed')"),
    "z_perfect": lambda r, s: S.perfect(r, s),
    "z_wrong": lambda r, s: S.with_answers(r, s, {WRONG.grade_id: WRONG.path.read_text()}),
}


@pytest.fixture(scope="module")
def hostile_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    scratch = _class(root, {**honest_students(), **HOSTILE})
    _misnamed(scratch.root)
    twice = scratch.root / "submitted" / "l_two_notebooks" / AID
    twice.mkdir(parents=True)
    for name in ("draft.ipynb", "final.ipynb"):
        ipynb.write(S.perfect(ipynb.read(COURSE.release(AID)), ipynb.read(COURSE.solution(AID))), twice / name)
    (scratch.root / "submitted" / "n_missing" / AID).mkdir(parents=True)
    result = run_course("autograde", "--workers", "2", *LIMITS, cwd=scratch.root)
    assert result.returncode == 1, "rows in error: a cron job must see it\n" + result.stdout + result.stderr
    return _rows(scratch.root), scratch


def _score(row):
    return float(row["score"]), float(row["max_score"])


@pytest.mark.slow
def test_honest_students_get_exactly_their_grades(hostile_class):
    rows, _ = hostile_class
    assert _score(rows["a_perfect"])[0] == _score(rows["a_perfect"])[1] == _score(rows["z_perfect"])[0]
    assert rows["a_wrong"]["score"] == rows["z_wrong"]["score"]
    assert 0 < float(rows["a_wrong"]["score"]) < float(rows["a_wrong"]["max_score"])
    assert float(rows["a_blank"]["score"]) == 0
    for name in ("a_perfect", "a_wrong", "a_blank", "z_perfect", "z_wrong"):
        assert rows[name]["status"] == "graded" and rows[name]["flags"] == "", rows[name]


@pytest.mark.slow
def test_every_student_has_a_row_with_status_and_detail(hostile_class):
    rows, scratch = hostile_class
    students = {p.name for p in (scratch.root / "submitted").iterdir()}
    assert set(rows) == students
    for row in rows.values():
        assert row["status"] in {"graded", "error", "missing", "unmatched"} and row["detail"], row


@pytest.mark.slow
def test_endless_loops_hit_the_time_limits(hostile_class):
    rows, _ = hostile_class
    loop = rows["b_endless_loop"]
    assert loop["status"] == "graded" and 0 < _score(loop)[0] < _score(loop)[1], loop
    slow = rows["b_slow_everywhere"]
    assert slow["status"] == "error" and f"longer than {JOB_SECONDS} s" in slow["detail"], slow
    # Stopped while the grader judged a test: that test fails, the kernel is interrupted, the next ones run.
    tested = rows["b_loops_when_tested"]
    assert tested["status"] == "graded" and tested["detail"].startswith("failed: test_softmax;"), tested
    assert "ran longer than the time limit per cell" in tested["detail"], tested


@pytest.mark.slow
@pytest.mark.parametrize("student", ["c_os_exit", "d_segfault"])
def test_a_dead_kernel_is_an_error_for_that_student(hostile_class, student):
    row = hostile_class[0][student]
    assert row["status"] == "error" and "kernel died" in row["detail"], row
    log = error_log(hostile_class[1], AID, student)
    assert "kernel died" in log.read_text().lower(), "the instructor gets nbgrader's log of the failure"


@pytest.mark.slow
def test_system_exit_memory_hog_and_output_flood_cost_only_their_author(hostile_class):
    rows, scratch = hostile_class
    for name in ("e_system_exit", "f_memory_hog"):
        assert rows[name]["status"] == "graded" and 0 < _score(rows[name])[0] < _score(rows[name])[1]
    flood = rows["g_megabytes_of_output"]
    assert flood["status"] == "graded" and _score(flood)[0] == _score(flood)[1]
    graded = scratch.root / "autograded" / "g_megabytes_of_output" / AID / f"{AID}.ipynb"
    assert graded.stat().st_size < 2_000_000, "output is capped before it reaches the gradebook"


@pytest.mark.slow
def test_monkeypatching_and_lying_tensors_score_nothing_silently(hostile_class):
    rows, _ = hostile_class
    patched = rows["h_patches_allclose"]
    assert patched["score"] == rows["a_wrong"]["score"], "patching torch must not rescue a wrong answer"
    assert "writes to torch.allclose" in patched["flags"] and patched["held"] == "yes"
    liar = rows["h_lying_subclass"]
    assert float(liar["score"]) < float(liar["max_score"]) and "subclasses a tensor" in liar["flags"]


@pytest.mark.slow
def test_reading_solutions_or_other_students_is_blocked_and_flagged(hostile_class):
    rows, scratch = hostile_class
    row = rows["i_reads_solutions"]
    assert row["status"] == "graded" and "imports glob" in row["flags"] and "uses open" in row["flags"]
    graded = ipynb.read(scratch.root / "autograded" / "i_reads_solutions" / AID / f"{AID}.ipynb")
    printed = "".join(o.get("text", "") for c in graded.cells if ipynb.nbgrader_meta(c).get("grade_id") == "softmax"
                      for o in c.get("outputs", []))
    assert printed.strip().endswith("0 0"), f"the student saw files: {printed[-200:]}"


@pytest.mark.slow
def test_broken_and_misplaced_notebooks(hostile_class):
    rows, scratch = hostile_class
    assert rows["j_duplicate_grade_id"]["status"] == "graded"
    assert _score(rows["j_duplicate_grade_id"])[0] == _score(rows["j_duplicate_grade_id"])[1]
    assert "duplicate grade ids" in rows["j_duplicate_grade_id"]["flags"]
    for name in ("k_truncated_json", "k_not_json"):
        assert rows[name]["status"] == "error" and "not valid notebook JSON" in rows[name]["detail"]
    assert rows["l_misnamed"]["status"] == "graded" and "my copy.ipynb" in rows["l_misnamed"]["detail"]
    assert rows["n_missing"]["status"] == "missing", "an empty folder: nothing handed in"
    two = rows["l_two_notebooks"]
    assert two["status"] == "unmatched" and "draft.ipynb, final.ipynb" in two["detail"], two
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{scratch.root / 'gradebook.db'}", "attention-graded") as gb:
        roster = {student.id for student in gb.students}
    assert {"l_two_notebooks", "n_missing"} <= roster, "the formgrader and the LMS export list them"
    for name in ("m_deleted_test_cell", "m_edited_test_cell"):
        assert _score(rows[name])[0] == _score(rows[name])[1], f"{name}: the grader restores its tests"


@pytest.mark.slow
def test_feedback_and_report_for_the_class(hostile_class):
    _, scratch = hostile_class
    result = run_course("feedback", AID, cwd=scratch.root)
    assert result.returncode == 0, result.stdout + result.stderr
    page = (scratch.root / "feedback" / "a_wrong" / AID / f"{AID}.html").read_text()
    assert "BEGIN HIDDEN TESTS" not in page and "Score" in page
    result = run_course("report", cwd=scratch.root)
    assert result.returncode == 0 and "pass rate" in result.stdout
    assert (scratch.root / "reports" / f"scores-{AID}.png").stat().st_size > 1000


@pytest.mark.slow
def test_a_killed_grader_resumes_without_regrading(tmp_path):
    scratch = _class(tmp_path, {f"s{i}": honest_students()["a_perfect"] for i in range(4)})
    journal = scratch.root / "build" / "grading" / "journal.jsonl"
    grader = subprocess.Popen([sys.executable, "-m", "course_utils", "autograde", "--workers", "1", *LIMITS],
                              cwd=scratch.root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline and not (journal.is_file() and journal.read_text().count("\n") >= 1):
        time.sleep(0.2)
    grader.send_signal(signal.SIGKILL)
    grader.wait()
    first = journal.read_text().count("\n")
    assert 1 <= first < 4, "the kill came after the first student and before the last"
    so_far = [row for row in _rows(scratch.root).values() if row["status"] == "graded"]
    assert len(so_far) >= first, "grades.csv is written as the run goes, not only when it finishes"

    result = run_course("autograde", "--workers", "2", *LIMITS, cwd=scratch.root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"taking over the lock of course autograde (PID {grader.pid}" in result.stderr
    records = [json.loads(line) for line in journal.read_text().splitlines()]
    assert len(records) == 4 and len({r["student_id"] for r in records}) == 4, "nothing graded twice"
    rows = _rows(scratch.root)
    assert all(r["status"] == "graded" and r["score"] == r["max_score"] for r in rows.values())

    assert run_course("autograde", "--force", *LIMITS, cwd=scratch.root).returncode == 0
    assert journal.read_text().count("\n") == 8, "--force regrades everyone"


PRINT_THREADS = 'print("kernel threads:", torch.get_num_threads())'


def _kernel_threads(root):
    """The threads the perfect student's kernel had, as its autograded notebook printed them."""
    nb = ipynb.read(Path(root) / "autograded" / "a_perfect" / AID / f"{AID}.ipynb")
    printed = "".join(out.get("text", "") for cell in nb.cells if cell.cell_type == "code" for out in cell.outputs)
    return int(printed.split("kernel threads:")[1].split()[0])


@pytest.fixture(scope="module")
def small_class(tmp_path_factory):
    """Three honest students graded on the local pool: the grades other back-ends must match.

    The perfect student also prints the threads torch got, so that a test can read, in the
    autograded notebook, what the kernel itself was given.
    """
    students = {**honest_students(), "a_perfect": lambda r, s: _append(S.perfect(r, s), "softmax", PRINT_THREADS)}
    scratch = _class(tmp_path_factory.mktemp("small"), students)
    result = run_course("autograde", "--workers", "2", *LIMITS, cwd=scratch.root)
    assert result.returncode == 0, result.stdout + result.stderr
    return scratch, {k: (r["score"], r["status"]) for k, r in _rows(scratch.root).items()}


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_grades(small_class):
    scratch, expected = small_class
    result = run_course("autograde", "--scheduler", "--workers", "2", "--force", *LIMITS, cwd=scratch.root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert {k: (r["score"], r["status"]) for k, r in _rows(scratch.root).items()} == expected


def _start_on_every_core(command, cwd):
    """Start `command` on every core of the machine, where the suite pins each of its own workers to one.

    A kernel's threads then tell its share (every core, for one slot) from Dask's default of one thread.
    (Set here and given back, rather than in a preexec_fn, which is unsafe in a process with threads.)
    """
    pinned = os.sched_getaffinity(0)
    os.sched_setaffinity(0, range(os.cpu_count() or 1))
    try:
        return subprocess.Popen(list(map(str, command)), cwd=cwd, start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        os.sched_setaffinity(0, pinned)


@pytest.mark.slow
def test_a_dask_scheduler_and_workers_started_elsewhere_give_the_same_grades(small_class, tmp_path):
    """`dask scheduler` and `dask worker` as an instructor starts them: processes of their own, in a
    folder with no course. Its one grading slot gives each kernel every core the worker may use."""
    from dask.distributed import Client

    scratch, expected = small_class
    elsewhere = tmp_path / "cluster"
    elsewhere.mkdir()
    address_file = elsewhere / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    started = []
    try:
        for command in ([*dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                         "--dashboard-address", ":0", "--scheduler-file", address_file],
                        [*dask, "worker", "--scheduler-file", address_file, "--nworkers", "1", "--nthreads", "1",
                         "--no-dashboard", "--local-directory", elsewhere]):
            started.append(_start_on_every_core(command, elsewhere))
            deadline = time.monotonic() + 60
            while not address_file.is_file() and time.monotonic() < deadline:
                time.sleep(0.2)
        address = json.loads(address_file.read_text())["address"]
        with Client(address, timeout=60) as client:
            client.wait_for_workers(1, timeout=120)
            assert all(cwd == str(elsewhere) for cwd in client.run(os.getcwd).values())
            (cores,) = set(client.run(lambda: len(os.sched_getaffinity(0))).values())
        # Two of the three students (one slot grades them one after the other), and only this run's rows.
        graded = {k: v for k, v in expected.items() if k != "a_blank"}
        (scratch.root / "reports" / "grades.csv").unlink()
        shutil.rmtree(scratch.root / "autograded")
        result = run_course("autograde", "--scheduler", address, "--force", *LIMITS,
                            *(f"--student={s}" for s in graded), cwd=scratch.root)
    finally:
        for process in reversed(started):  # the worker first, then the scheduler; each with its children
            os.killpg(process.pid, signal.SIGTERM)
        for process in reversed(started):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    assert result.returncode == 0, result.stdout + result.stderr
    assert {k: (r["score"], r["status"]) for k, r in _rows(scratch.root).items()} == graded
    assert _kernel_threads(scratch.root) == cores, "one slot: the kernel gets every core of its worker"


@pytest.mark.slow
def test_postgresql_gradebook_gives_the_same_grades(small_class, postgres_url):
    scratch, expected = small_class
    result = run_course("autograde", "--workers", "2", "--force", "--db-url", postgres_url, *LIMITS,
                        cwd=scratch.root)
    assert result.returncode == 0, result.stdout + result.stderr
    assert {k: (r["score"], r["status"]) for k, r in _rows(scratch.root).items()} == expected
    from nbgrader.api import Gradebook

    with Gradebook(postgres_url, "attention-graded") as gb:
        stored = {s.student.id: float(s.score) for s in gb.find_assignment(AID).submissions}
    assert stored == {k: float(v[0]) for k, v in expected.items()}


@pytest.mark.slow
def test_bench_grade_prints_throughput():
    result = run_course("bench", "grade", "--quick", timeout=1200)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "per minute" in result.stdout and "one student's submission" in result.stdout
    assert "course/nbgrader" in result.stdout, "the side-by-side with plain nbgrader"
