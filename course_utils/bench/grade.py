"""`course bench grade`: grading throughput on a synthetic class, at 1 and at N workers."""
from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from course_utils.course import Course
from course_utils.grader.pipeline import autograde
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
