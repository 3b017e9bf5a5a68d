"""The grading journal: the latest record of each (student, assignment) wins; a torn line is skipped."""
import json

from course_utils.grader.journal import Journal, fingerprint, parse


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
