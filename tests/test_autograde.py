"""`course autograde` and nbgrader feedback on a small class in a scratch course root."""
import csv

import pytest

from conftest import COURSE, IDS, hidden_test_lines, run_course
from course_utils import submissions
from course_utils.catalogue import load
from course_utils.nbgrader_runner import run_nbgrader
from course_utils.sample_class import write_class

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
