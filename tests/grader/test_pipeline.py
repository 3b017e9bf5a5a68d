"""`course autograde`'s pipeline: its pure parts, and a small class graded and handed back."""
import csv

import pytest

from conftest import COURSE, IDS, hidden_test_lines, run_course
from course_utils.grader.nbgrader_runner import run_nbgrader
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
    from course_utils.grader.jobs import Limits
    from course_utils.grader.pipeline import share_cores

    assert share_cores(Limits(), workers=2, cores=2).threads == 1
    assert share_cores(Limits(), workers=1, cores=8).threads == 8
    assert share_cores(Limits(), workers=3, cores=8, scheduler="local").threads == 2
    assert share_cores(Limits(), workers=16, cores=2).threads == 1
    assert share_cores(Limits(), workers=2, cores=2, scheduler="tcp://grader:8786").threads == 0
    assert share_cores(Limits(threads=4), workers=2, cores=2).threads == 4


def test_a_postgresql_gradebook_without_its_driver_names_the_extra(monkeypatch):
    import sys

    from course_utils.course import CourseError
    from course_utils.grader.pipeline import require_driver

    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(CourseError, match=r"\[grader\]"):
        require_driver("postgresql://grader@db/course")
    require_driver("sqlite:///gradebook.db")   # SQLite needs nothing more
