"""The grading journal: the latest record of each (student, assignment) wins; a torn line is skipped;
an error that may be the machine's is graded again by the next plain run."""
import json

import pytest

from course_utils.grader.engine.journal import Journal, fingerprint, parse
from test_grading_scale import AID, _class, _rows, honest_students


def test_latest_record_wins_and_torn_lines_are_skipped():
    lines = [json.dumps({"student_id": "ana", "assignment": "01", "score": 1}),
             json.dumps({"student_id": "ben", "assignment": "01", "score": 2}),
             json.dumps({"student_id": "ana", "assignment": "01", "score": 3}),
             '{"student_id": "cy", "assign',          # cut short by a crash
             json.dumps({"score": 4}),                 # no key
             "[1, 2]"]
    records = parse(lines)
    assert set(records) == {("ana", "01"), ("ben", "01")} and records["ana", "01"]["score"] == 3


def test_journal_appends_and_loads(tmp_path):
    journal = Journal(tmp_path / "grading" / "journal.jsonl")
    assert journal.load() == {}
    journal.append({"student_id": "ana", "assignment": "01", "score": 1.0})
    journal.append({"student_id": "ana", "assignment": "02", "score": 0.0})
    assert set(journal.load()) == {("ana", "01"), ("ana", "02")}


def test_fingerprint_is_the_content():
    assert fingerprint(b"a") == fingerprint(b"a") != fingerprint(b"b")


@pytest.mark.slow
def test_an_error_of_the_graders_own_is_graded_again_by_the_next_plain_run(tmp_path, monkeypatch):
    from course_utils.grader.engine import jobs
    from course_utils.grader.engine.pipeline import autograde
    from course_utils.grader.engine.records import RETRIED

    scratch = _class(tmp_path, {"s0": honest_students()["a_perfect"]})
    real = jobs._run_in

    def lost_database(private, sockets, job, *rest):  # what a second run deleting this one's folders caused
        raise OSError("unable to open database file")

    monkeypatch.setattr(jobs, "_run_in", lost_database)
    (failed,) = autograde(scratch, [AID], progress=False)
    assert failed.status == "error" and failed.retry and RETRIED in failed.detail, failed
    assert _rows(scratch.root)["s0"]["status"] == "error"
    monkeypatch.setattr(jobs, "_run_in", real)
    (graded,) = autograde(scratch, [AID], progress=False)
    assert graded.status == "graded" and graded.score == graded.max_score > 0, graded
    row = _rows(scratch.root)["s0"]
    assert row["status"] == "graded" and float(row["score"]) == graded.score
