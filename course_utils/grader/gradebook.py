"""nbgrader's gradebook, read and written through nbgrader's own API.

Grading jobs run with private SQLite gradebooks; only the process that runs
`pipeline.autograde` writes the real gradebook, one finished job at a time, so SQLite's
single-writer rule holds and a PostgreSQL gradebook sees ordinary short transactions.
"""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from course_utils.grader.records import GradeRecord

# nbgrader.api is imported where a gradebook is opened: importing the nbgrader package loads
# its Jupyter server extensions (seconds), which `course --help` and the CLI's parser must not pay.

CellScores = dict[str, tuple[float, float]]  # test cell grade id -> (score, max score)


def max_score(db_url: str, course_id: str, aid: str) -> float:
    from nbgrader.api import Gradebook

    with Gradebook(db_url, course_id) as gb:
        return float(gb.find_assignment(aid).max_score)


def submission_scores(db_url: str, course_id: str, aid: str,
                      student: str) -> tuple[float, float, CellScores] | None:
    """(score, max_score, {test cell: (score, max)}) of a graded submission, or None if there is none."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(db_url, course_id) as gb:
        try:
            submission = gb.find_submission(aid, student)
        except MissingEntry:
            return None
        cells = {}
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                cells[grade.name] = (float(grade.score), float(grade.max_score))
        return float(submission.score), float(submission.max_score), cells


def record(db_url: str, course_id: str, graded: GradeRecord) -> None:
    """Store a graded job's per-cell scores as nbgrader's autograde would have."""
    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SAWarning

    with warnings.catch_warnings(), Gradebook(db_url, course_id) as gb:
        # nbgrader's own update_or_create_submission trips a harmless SQLAlchemy autoflush warning.
        warnings.simplefilter("ignore", SAWarning)
        gb.update_or_create_student(graded.student_id)
        submission = gb.update_or_create_submission(graded.assignment, graded.student_id)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                got, _ = graded.cells.get(grade.name, (0.0, 0.0))
                grade.auto_score = got
                grade.manual_score = None
                grade.needs_manual_grade = False
        gb.db.commit()


def ensure_student(db_url: str, course_id: str, student: str) -> None:
    from nbgrader.api import Gradebook

    with Gradebook(db_url, course_id) as gb:
        gb.update_or_create_student(student)
