"""The one writer of the real gradebook: merges finished jobs' scores into it.

Grading jobs run in private roots with private SQLite gradebooks; only the parent
process records their scores here, one job at a time, so SQLite's single-writer rule
holds and a PostgreSQL gradebook sees ordinary short transactions.
"""
import warnings

from nbgrader.api import Gradebook
from sqlalchemy.exc import SAWarning


def record(db_url, course_id, result):
    """Store a graded job's per-cell scores as nbgrader's autograde would have."""
    with warnings.catch_warnings(), Gradebook(db_url, course_id) as gb:
        # nbgrader's own update_or_create_submission trips a harmless SQLAlchemy autoflush warning.
        warnings.simplefilter("ignore", SAWarning)
        gb.update_or_create_student(result.student)
        submission = gb.update_or_create_submission(result.assignment, result.student)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                got, _ = result.cells.get(grade.name, (0.0, 0.0))
                grade.auto_score = got
                grade.manual_score = None
                grade.needs_manual_grade = False
        gb.db.commit()


def ensure_student(db_url, course_id, student):
    with Gradebook(db_url, course_id) as gb:
        gb.update_or_create_student(student)
