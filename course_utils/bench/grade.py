"""`course bench grade`: grading throughput on a synthetic class, at 1 and at N workers, and per notebook
side by side with plain `nbgrader autograde` and with the notebook's own execution time.

For instructors sizing a grading machine, and for the course's goal that grading costs little more
than running the notebooks: the notebook's own time (`notebook_seconds`) is its cells run in fast
mode (NBGRADER_EXECUTION=autograde, as graded) by a plain kernel that was started and ready before
the clock starts, its imports (torch) included; plain nbgrader is nbgrader's own command, its own
kernel, no sandbox, on a copy of the same submissions.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from course_utils.course import Course
from course_utils.grader.engine.pipeline import autograde
from course_utils.qa import catalogue, submissions
from course_utils.qa.sample_class import write_class

if TYPE_CHECKING:
    from nbformat import NotebookNode


# Students in the synthetic class: enough that 2 workers are not left waiting on one long job.
STUDENTS, QUICK_STUDENTS = 8, 2


def graded_ids(course: Course) -> list[str]:
    """The notebooks a grading benchmark grades: all but 00_welcome, which has no exercise."""
    return [aid for aid in course.ids() if aid != "00_welcome"]


def synthetic_class(course: Course, ids: list[str], students: int, folder: Path) -> Course:
    """`students` students x `ids`: every other one perfect, the rest one catalogued mistake each."""
    def hand_in(aid: str, release_nb: NotebookNode, solution_nb: NotebookNode) -> dict[str, NotebookNode]:
        wrong = [e for e in catalogue.load(course, aid) if e.kind == "wrong"]
        made = {}
        for i in range(students):
            if i % 2 == 0 or not wrong:
                made[f"student{i:04d}"] = submissions.perfect(release_nb, solution_nb)
            else:
                entry = wrong[(i // 2) % len(wrong)]
                made[f"student{i:04d}"] = submissions.with_answers(
                    release_nb, solution_nb, {entry.grade_id: entry.path.read_text()})
        return made

    return write_class(course, ids, folder, hand_in, fresh=True)


def bench(course: Course, ids: list[str], students: int, workers_list: list[int],
          folder: Path | None = None) -> tuple[list[tuple], float]:
    """Rows (workers, submissions, seconds, per minute, speedup) and seconds per full course."""
    folder = folder or course.build("bench-grade")
    scratch = synthetic_class(course, ids, students, folder)
    rows, baseline, per_student = [], None, None
    for workers in workers_list:
        start = time.perf_counter()
        graded = autograde(scratch, ids, workers=workers, force=True, progress=False)
        seconds = time.perf_counter() - start
        count = sum(r.status == "graded" for r in graded)
        baseline = baseline or seconds
        if workers == 1:
            per_student = seconds / students
        rows.append((workers, count, round(seconds, 1), round(60 * count / seconds, 1), round(baseline / seconds, 2)))
    return rows, per_student


SIDE_BY_SIDE_HEADERS = ["notebook", "submissions", "course s/sub", "setup s/run", "nbgrader s/sub", "own s",
                        "course/own", "course/nbgrader"]


def notebook_seconds(course: Course, aid: str) -> float:
    """The solution's cells run one after another in a kernel already started and ready, as graded (fast)."""
    import tempfile

    from jupyter_client import KernelManager
    from nbclient import NotebookClient

    from course_utils import ipynb

    with tempfile.TemporaryDirectory(prefix="bench-own-") as tmp:
        folder = Path(tmp) / aid
        shutil.copytree(course.solution(aid).parent, folder)
        notebook = ipynb.read(folder / f"{aid}.ipynb")
        # ipc, as graded kernels are reached; its log to a file, not into the benchmark's table
        manager = KernelManager(kernel_name="python3", transport="ipc", ip=str(Path(tmp) / "kernel"))
        with open(Path(tmp) / "kernel.log", "wb") as log:
            manager.start_kernel(cwd=str(folder), env=dict(os.environ, NBGRADER_EXECUTION="autograde"),
                                 stdout=log, stderr=log)
        client = NotebookClient(notebook, km=manager, timeout=600, resources={"metadata": {"path": str(folder)}})
        with client.setup_kernel():
            client.kc.wait_for_ready(timeout=120)
            start = time.perf_counter()
            for index, cell in enumerate(notebook.cells):
                client.execute_cell(cell, index)
            return time.perf_counter() - start


def plain_nbgrader_seconds(scratch: Course, aid: str, folder: Path) -> tuple[float, int]:
    """nbgrader's own `nbgrader autograde AID` on a copy of the class: (seconds, submissions graded)."""
    copy = folder / "plain-nbgrader"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(scratch.root, copy, ignore=shutil.ignore_patterns("autograded", "build", "reports"))
    nbgrader = Path(sys.executable).with_name("nbgrader")
    start = time.perf_counter()
    subprocess.run([str(nbgrader), "autograde", aid, "--force"], cwd=copy, capture_output=True, timeout=3600,
                   env={k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"})
    seconds = time.perf_counter() - start
    graded = len(list(copy.glob(f"autograded/*/{aid}/{aid}.ipynb")))
    return seconds, graded


def side_by_side(course: Course, ids: list[str], students: int, folder: Path | None = None) -> list[tuple]:
    """Per notebook: course autograde on one worker against plain nbgrader and the notebook's own time.

    A run of `course autograde` pays a fixed setup (the assignment recorded in the gradebook, the
    lock, reading every submission) and then each submission's own cost: it is measured as a
    forced run less a run with nothing left to grade, each after a first run that made the
    assignment's template. Plain nbgrader's figure is its whole run over the submissions.
    """
    folder = folder or course.build("bench-grade-vs")
    rows = []
    for aid in ids:
        scratch = synthetic_class(course, [aid], students, folder / "class")
        autograde(scratch, [aid], workers=1, force=True, progress=False)  # makes the template, warms caches
        start = time.perf_counter()
        graded = autograde(scratch, [aid], workers=1, force=True, progress=False)
        forced = time.perf_counter() - start
        start = time.perf_counter()
        autograde(scratch, [aid], workers=1, progress=False)  # nothing changed: the setup alone
        setup = time.perf_counter() - start
        ours = max(0.0, forced - setup) / max(1, sum(r.status == "graded" for r in graded))
        plain_seconds, plain_count = plain_nbgrader_seconds(scratch, aid, folder)
        plain = plain_seconds / max(1, plain_count)
        own = notebook_seconds(course, aid)
        rows.append((aid, students, round(ours, 2), round(setup, 2), round(plain, 2), round(own, 2),
                     round(ours / own, 2), round(ours / plain, 2)))
    return rows


AGAINST_HEADERS = ["notebook", "submissions", "this s/sub", "other s/sub", "this/other", "runs"]
# Run by each checkout's own Python: build its synthetic class, then time a forced run and a run with
# nothing left to grade (the setup), as `side_by_side` does. The old layout's import paths are tried too.
_TIMED_RUN = '''
import json, sys, time
from pathlib import Path
from course_utils.course import Course
from course_utils.bench.grade import synthetic_class
try:
    from course_utils.grader.engine.pipeline import autograde
except ImportError:
    from course_utils.grader.pipeline import autograde
root, aid, students, folder, fresh = sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4]), sys.argv[5] == "1"
if fresh:
    scratch = synthetic_class(Course(Path(root)), [aid], students, folder)
    autograde(scratch, [aid], workers=1, force=True, progress=False)  # the template, the caches
scratch = Course(folder)
start = time.perf_counter()
graded = autograde(scratch, [aid], workers=1, force=True, progress=False)
forced = time.perf_counter() - start
start = time.perf_counter()
autograde(scratch, [aid], workers=1, progress=False)
setup = time.perf_counter() - start
print(json.dumps({"seconds": max(0.0, forced - setup), "graded": sum(r.status == "graded" for r in graded)}))
'''


def _python_of(checkout: Path) -> str:
    for candidate in (checkout / ".venv" / "bin" / "python", checkout / ".venv" / "Scripts" / "python.exe"):
        if candidate.exists():
            return str(candidate)
    raise FileNotFoundError(f"{checkout} has no .venv: install it there first (python3 -m venv .venv && "
                            ".venv/bin/pip install -e .)")


def against(course: Course, other: Path, ids: list[str], students: int, repeats: int = 3,
            folder: Path | None = None) -> list[tuple]:
    """Per notebook: seconds per submission on one worker, this checkout against `other` (another checkout
    of the course, with its own .venv), each grading its own release of the notebook with the same kind of
    synthetic class, in turn (this, other, this, ...) so that the machine's load falls on both alike;
    the medians of `repeats` runs each."""
    import json
    import statistics

    folder = folder or course.build("bench-grade-against")
    sides = {"this": (sys.executable, course.root), "other": (_python_of(other), other)}
    rows = []
    for aid in ids:
        times: dict[str, list[float]] = {"this": [], "other": []}
        counts = {}
        for run in range(repeats):
            for side, (python, root) in sides.items():
                result = subprocess.run([python, "-c", _TIMED_RUN, str(root), aid, str(students),
                                         str(folder / side / aid), "1" if run == 0 else "0"],
                                        capture_output=True, text=True, timeout=7200, cwd=str(root),
                                        env={k: v for k, v in os.environ.items() if k != "NBGRADER_EXECUTION"})
                if result.returncode != 0:
                    raise RuntimeError(f"{side} ({root}) could not grade {aid}:\n{result.stderr[-2000:]}")
                measured = json.loads(result.stdout.strip().splitlines()[-1])
                times[side].append(measured["seconds"] / max(1, measured["graded"]))
                counts[side] = measured["graded"]
        this, theirs = statistics.median(times["this"]), statistics.median(times["other"])
        rows.append((aid, counts["this"], round(this, 2), round(theirs, 2), round(this / theirs, 2), repeats))
    return rows
