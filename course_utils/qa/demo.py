"""`course demo`: the course's main job, end to end, on an embedded sample class.

1. check the release is in sync with the solutions;
2. execute every solution notebook (fast on a CPU, full on a CUDA GPU) and, in fast mode, audit
   their prose: every measured number it states is one the run printed (course_utils.qa.claims);
3. build a sample class in build/demo-class/ (a scratch course root with its own SQLite
   gradebook): ada hands in perfect answers, alan the blank release, grace makes one
   plausible mistake per graded notebook (taken from the bug catalogue);
4. autograde it as `course autograde` does, print the score table and save grades.csv.
"""
from __future__ import annotations

import datetime
import time
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from course_utils.course import Course
from course_utils.grader.term import release
from course_utils.grader.engine.pipeline import autograde, available_cores
from course_utils.grader.engine.records import GradeRecord, score_table
from course_utils.qa import catalogue, claims, submissions
from course_utils.qa.execute import execute, execution_table
from course_utils.qa.sample_class import write_class

if TYPE_CHECKING:
    from nbformat import NotebookNode

STUDENTS = {
    "ada": "hands in the instructor's answers",
    "alan": "hands in the blank release",
    "grace": "makes one plausible mistake per graded notebook",
}


def _first_mistake(course: Course, aid: str) -> catalogue.Entry | None:
    wrong = [e for e in catalogue.load(course, aid) if e.kind == "wrong"]
    return wrong[0] if wrong else None


def build_class(course: Course, ids: list[str], folder: Path) -> tuple[Course, dict[str, catalogue.Entry]]:
    """The sample class as nbgrader submissions in a scratch course root at `folder`."""
    mistakes = {aid: m for aid in ids if (m := _first_mistake(course, aid))}

    def hand_in(aid: str, release_nb: NotebookNode, solution_nb: NotebookNode) -> dict[str, NotebookNode]:
        mistake = mistakes.get(aid)
        return {
            "ada": submissions.perfect(release_nb, solution_nb),
            "alan": release_nb,
            "grace": (submissions.with_answers(release_nb, solution_nb, {mistake.grade_id: mistake.path.read_text()})
                      if mistake else submissions.perfect(release_nb, solution_nb)),
        }

    now = datetime.datetime.now(datetime.timezone.utc)
    return write_class(course, ids, folder, hand_in, fresh=True, submitted_at=now), mistakes


def demo(course: Course) -> bool:
    ids = course.ids()
    ok = True
    started = time.perf_counter()

    print(f"[1/4] Release check: is notebooks/ what solutions/ gives? ({len(ids)} notebooks)")
    stale = release.check(course, ids)
    for aid, reasons in stale.items():
        print(f"      out of date: {aid}: {'; '.join(reasons)}  (run `course generate {aid}`)")
    print("      in sync" if not stale else "      NOT in sync")
    ok &= not stale

    gpu = torch.cuda.is_available()
    mode = "full mode on the GPU" if gpu else "fast mode on the CPU"
    print(f"\n[2/4] Executing every solution notebook ({mode})")
    runs = execute(course, ids, device="cuda" if gpu else "cpu", fast=not gpu, workers=min(2, available_cores()))
    print(execution_table(runs))
    ok &= all(r.status == "ok" for r in runs)
    if gpu:
        print("      prose not audited: it states the fast mode's numbers, and this run was the full mode")
    else:
        problems = audit_claims(course, [r.output for r in runs if r.status == "ok"])
        for problem in problems:
            print(f"      prose: {problem}")
        print(f"      prose: every measured number stated is this run's or listed as recorded "
              f"({sum(r.status == 'ok' for r in runs)} notebooks)" if not problems else
              f"      prose: {len(problems)} stated numbers this run contradicts")
        ok &= not problems

    folder = course.build("demo-class")
    print(f"\n[3/4] Sample class in {folder.relative_to(course.root)}/ (a course root with its own gradebook.db)")
    scratch, mistakes = build_class(course, ids, folder)
    for student, what in STUDENTS.items():
        print(f"      {student:6} {what}")
    for aid, mistake in mistakes.items():
        print(f"      grace, {aid} / {mistake.grade_id}: {mistake.doc}")

    print("\n[4/4] Autograding the class as `course autograde` does")
    rows = autograde(scratch, workers=min(2, available_cores()))
    print(score_table(rows, ids))
    print(f"      grades: {(scratch.root / 'reports' / 'grades.csv').relative_to(course.root)}")
    unisolated = sorted({f for row in rows for f in row.flags if f.startswith("not isolated")})
    print("      every kernel ran isolated (bubblewrap: no network, no course files, limits)" if not unisolated
          else f"      {unisolated[0]}")
    ok &= _as_expected(rows, mistakes)

    minutes = (time.perf_counter() - started) / 60
    print(f"\nDemo {'passed' if ok else 'FAILED'} in {minutes:.1f} min. What it wrote:")
    print(f"      {course.build('executed').relative_to(course.root)}/  every notebook as it ran, outputs and figures")
    print(f"      {folder.relative_to(course.root)}/  the class, a course root of its own: in it, try "
          "`course feedback`, `course report` and `course export`")
    return ok


def audit_claims(course: Course, executed: list[Path]) -> list[str]:
    """The claims audit of executed notebooks, each problem prefixed with its notebook."""
    import nbformat

    return [f"{path.stem}: {problem}" for path in executed
            for problem in claims.audit(nbformat.read(str(path), as_version=4), course.root)]


def _as_expected(rows: list[GradeRecord], mistakes: dict[str, catalogue.Entry]) -> bool:
    """ada full marks, alan zero, grace below full wherever she made a mistake."""
    good = True
    for row in rows:
        expected = {"ada": row.score == row.max_score and row.status == "graded",
                    "alan": row.score == 0,
                    "grace": row.score < row.max_score if row.assignment in mistakes else True}[row.student_id]
        if not expected:
            print(f"      unexpected: {row.student_id} scored {row.score:g}/{row.max_score:g} on {row.assignment}"
                  f" ({row.status}: {row.detail})")
            good = False
    return good
