"""`course autograde`'s pipeline: its pure parts, and a small class graded and handed back."""
import csv

import pytest

from conftest import COURSE, IDS, hidden_test_lines, run_course
from course_utils.grader.engine.nbgrader_runner import run_nbgrader
from course_utils.qa import submissions
from course_utils.qa.catalogue import load
from course_utils.qa.sample_class import write_class

GRADED = [aid for aid in IDS if load(COURSE, aid)]


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    """Two assignments; ana answers both perfectly, ben makes one mistake and skips the second."""
    first, second = GRADED[0], GRADED[-1]
    mistake = next(e for e in load(COURSE, first) if e.kind == "wrong")

    def hand_in(aid, release, solution):
        handed_in = {"ana": submissions.perfect(release, solution)}
        if aid == first:
            handed_in["ben"] = submissions.with_answers(release, solution, {mistake.grade_id: mistake.path.read_text()})
        return handed_in

    scratch = write_class(COURSE, [first, second], tmp_path_factory.mktemp("class"), hand_in)
    result = run_course("autograde", cwd=scratch.root)
    assert result.returncode == 0, result.stdout + result.stderr
    return scratch, first, second, mistake


@pytest.mark.slow
def test_grades_csv_has_a_row_per_student_and_assignment(graded_class):
    scratch, first, second, mistake = graded_class
    with (scratch.root / "reports" / "grades.csv").open() as handle:
        rows = {(r["student_id"], r["assignment"]): r for r in csv.DictReader(handle)}
    assert set(rows) == {("ana", first), ("ana", second), ("ben", first), ("ben", second)}
    for aid in (first, second):
        assert rows["ana", aid]["status"] == "graded"
        assert float(rows["ana", aid]["score"]) == float(rows["ana", aid]["max_score"]) > 0
    assert rows["ben", first]["status"] == "graded"
    assert float(rows["ben", first]["score"]) < float(rows["ben", first]["max_score"])
    assert mistake.grade_id in rows["ben", first]["detail"]
    assert rows["ben", second]["status"] == "missing" and float(rows["ben", second]["score"]) == 0


@pytest.mark.slow
def test_feedback_shows_scores_but_no_hidden_test(graded_class):
    scratch, first, _, _ = graded_class
    result = run_nbgrader(scratch.root, "generate_feedback", first)
    assert result.ok, result.log
    html = (scratch.root / "feedback" / "ben" / first / f"{first}.html").read_text()
    assert "BEGIN HIDDEN TESTS" not in html and "Hidden tests: they run when" in html
    hidden = hidden_test_lines(first, 20)
    assert hidden, "the notebook has hidden tests to look for"
    import html as html_lib

    text = html_lib.unescape(html)
    leaked = [line for line in hidden if line in text]
    assert not leaked, f"feedback shows hidden test lines: {leaked[:3]}"


def test_local_workers_share_the_cores_between_their_kernels():
    from course_utils.grader.engine.jobs import Limits
    from course_utils.grader.engine.pipeline import share_cores

    assert share_cores(Limits(), workers=2, cores=2).threads == 1
    assert share_cores(Limits(), workers=1, cores=8).threads == 8
    assert share_cores(Limits(), workers=3, cores=8, scheduler="local").threads == 0, "set on each Dask worker"
    assert share_cores(Limits(), workers=16, cores=2).threads == 1
    assert share_cores(Limits(), workers=2, cores=2, scheduler="tcp://grader:8786").threads == 0
    assert share_cores(Limits(threads=4), workers=2, cores=2).threads == 4


def test_a_postgresql_gradebook_without_its_driver_names_the_extra(monkeypatch):
    import sys

    from course_utils.course import CourseError
    from course_utils.grader.engine.pipeline import require_driver

    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(CourseError, match=r"\[grader\]"):
        require_driver("postgresql://grader@db/course")
    require_driver("sqlite:///gradebook.db")   # SQLite needs nothing more


def test_exchange_files_are_read_only_when_small_plain_and_sensible(tmp_path):
    from course_utils.grader.engine.pipeline import EXCHANGE_FILE_BYTES, exchange_files

    folder = tmp_path / "submitted" / "ana" / "01"
    folder.mkdir(parents=True)
    assert exchange_files(folder) == ({}, [])
    (folder / "timestamp.txt").write_text("2026-11-23 10:00:00.000000 UTC\n")
    (folder / "submission_secret.txt").write_text("s3cret")
    found, flags = exchange_files(folder)
    assert found == {"timestamp.txt": "2026-11-23 10:00:00.000000 UTC\n", "submission_secret.txt": "s3cret"}
    assert flags == []

    (folder / "timestamp.txt").write_text("next tuesday")
    (folder / "submission_secret.txt").unlink()
    (folder / "submission_secret.txt").symlink_to(tmp_path / "instructor-only.txt")
    found, flags = exchange_files(folder)
    assert found == {} and len(flags) == 2
    assert any("timestamp.txt" in f and "time" in f for f in flags)
    assert any("submission_secret.txt" in f and "plain" in f for f in flags)

    (folder / "timestamp.txt").write_text("2026-11-23 10:00:00 UTC" + " " * EXCHANGE_FILE_BYTES)
    assert "timestamp.txt" not in exchange_files(folder)[0]


def test_grades_csv_keeps_the_rows_of_earlier_runs(tmp_path):
    from course_utils.grader.engine.pipeline import write_csv
    from course_utils.grader.engine.records import CSV_COLUMNS, GradeRecord

    path = tmp_path / "grades.csv"
    write_csv([GradeRecord("ben", "02_b", "graded", 3, 4), GradeRecord("ana", "02_b", "missing", 0, 4)], path,
              order=["01_a", "02_b"])
    write_csv([GradeRecord("ana", "01_a", "graded", 5, 5, timestamp="2026-11-23 10:00:00 UTC",
                           late_submission_penalty=5.0)], path, order=["01_a", "02_b"])
    write_csv([GradeRecord("ben", "02_b", "graded", 4, 4)], path, order=["01_a", "02_b"])  # a regrade
    with path.open() as handle:
        reader = csv.DictReader(handle)
        rows = [(r["assignment"], r["student_id"], r["score"], r["late_submission_penalty"]) for r in reader]
        assert reader.fieldnames == CSV_COLUMNS
    assert rows == [("01_a", "ana", "5", "5.0"), ("02_b", "ana", "0", "0.0"), ("02_b", "ben", "4", "0.0")]

    path.write_text("student_id,assignment,score\nold,01_a,1\n")  # another layout: not merged into
    write_csv([GradeRecord("ana", "01_a", "graded", 5, 5)], path)
    assert "old" not in path.read_text()


@pytest.mark.slow
def test_an_assignment_is_prepared_again_only_when_its_source_changed(graded_class, monkeypatch, tmp_path):
    from course_utils.grader.engine import gradebook, pipeline

    scratch, first, _, _ = graded_class
    db_url = scratch.db_url
    kept = pipeline.prepare_assignment(scratch, first, db_url, tmp_path / "a")
    made = []
    monkeypatch.setattr(pipeline, "generate", lambda *args, **kwargs: made.append(args) or pytest.fail("generated"))
    again = pipeline.prepare_assignment(scratch, first, db_url, tmp_path / "b")
    assert again == kept and not made, "unchanged: the kept template, and the gradebook already has it"
    monkeypatch.undo()

    other = f"sqlite:///{tmp_path / 'other.db'}"
    pipeline.prepare_assignment(scratch, first, other, tmp_path / "c")
    assert gradebook.has_assignment(other, scratch.course_id, first), "another gradebook learns the assignment"
    before = pipeline.source_digest(scratch, first)
    (scratch.solution_folder(first) / "notes.txt").write_text("a file beside the notebook changes the source")
    remade, real_template = [], pipeline.template
    monkeypatch.setattr(pipeline, "template", lambda *args: remade.append(args) or real_template(*args))
    try:
        assert pipeline.source_digest(scratch, first) != before
        pipeline.prepare_assignment(scratch, first, db_url, tmp_path / "d")
        assert len(remade) == 1, "a changed source makes its template again"
    finally:
        (scratch.solution_folder(first) / "notes.txt").unlink()
