"""Writing the gradebook: one connection per run, a briefly unreachable database tried again (on a new
connection), a lasting failure raised."""
import pytest

from course_utils.grader.engine.gradebook import retried


def test_a_failure_that_passes_is_tried_again():
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise ConnectionError("server closed the connection unexpectedly")
        return "stored"

    assert retried(flaky, attempts=3, pause=0) == "stored" and len(calls) == 3


def test_a_lasting_failure_is_raised_after_the_last_attempt():
    calls = []

    def down():
        calls.append(1)
        raise ConnectionError("could not connect to server")

    with pytest.raises(ConnectionError):
        retried(down, attempts=2, pause=0)
    assert len(calls) == 2


def _gradebook_with_one_assignment(path):
    from nbgrader.api import Gradebook

    from course_utils.grader.engine.nbgrader_runner import in_process_alembic_head

    in_process_alembic_head()  # a new gradebook asks for its schema's version (else an `alembic` on PATH)
    url = f"sqlite:///{path}"
    with Gradebook(url, "course") as gb:
        gb.add_assignment("a1")
        gb.add_notebook("a1", "a1")
        gb.add_grade_cell("test_x", "a1", "a1", max_score=2, cell_type="code")
    return url


def test_one_recorder_stores_a_run_and_a_record_that_failed_midway_is_stored_on_its_next_attempt(tmp_path, monkeypatch):
    """The run's one connection: a record whose writing failed halfway (its grades' table gone for a
    moment, as a database briefly unreachable) is tried again on a new connection and stored, and so
    are the records after it."""
    import sqlite3

    from nbgrader.api import Gradebook

    from course_utils.grader.engine import gradebook
    from course_utils.grader.engine.records import GradeRecord

    path = tmp_path / "gradebook.db"
    url = _gradebook_with_one_assignment(path)

    def rename(old, new):
        with sqlite3.connect(path) as db:
            db.execute(f"ALTER TABLE {old} RENAME TO {new}")

    pauses = []   # retried's pause between attempts: the table comes back
    monkeypatch.setattr(gradebook.time, "sleep", lambda _: pauses.append(rename("gone", "grade")))
    with gradebook.Recorder(url, "course") as recorder:
        assert recorder.record(GradeRecord("ana", "a1", "graded", cells={"test_x": (2.0, 2.0)})) == (2.0, 0.0)
        rename("grade", "gone")
        assert recorder.record(GradeRecord("ana", "a1", "graded", cells={"test_x": (0.5, 2.0)})) == (0.5, 0.0)
        assert len(pauses) == 1, "its first attempt failed"
        assert recorder.record(GradeRecord("ben", "a1", "graded", cells={"test_x": (1.0, 2.0)})) == (1.0, 0.0)
    with Gradebook(url, "course") as gb:
        assert {s.student.id: s.score for s in gb.find_assignment("a1").submissions} == {"ana": 0.5, "ben": 1.0}
