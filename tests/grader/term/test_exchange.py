"""A term with nbgrader's own exchange: what `course autograde` and `course feedback` leave must be
what nbgrader's collect, formgrader, export, release_feedback and fetch_feedback expect.

Students run nbgrader's student commands (fetch_assignment, submit, fetch_feedback) with
`--student`, as on a JupyterHub where nbgrader takes the id from the account; the instructor
runs release_assignment and collect. One assignment with an added manually graded cell
(a written answer), three students (one right, one with a bug, one late) and one on the roster
who hands in nothing.
"""
import csv
import datetime
import os
import re
import time

import nbformat
import pytest

from conftest import COURSE, run_course
from course_utils import ipynb
from course_utils.course import Course
from course_utils.grader.engine.gradebook import opened
from course_utils.grader.engine.nbgrader_runner import generate, launch, make_scratch_root, run_nbgrader, tool_environment
from course_utils.qa import submissions
from course_utils.qa.catalogue import load

AID = COURSE.ids()[1]  # 01: quick to grade
COURSE_ID = COURSE.course_id
WRITTEN = "why_scores_scale"  # the manually graded cell the test adds


def _add_written_answer(scratch: Course) -> None:
    """A markdown answer cell worth 2 points that a person grades (nbgrader: solution + grade)."""
    path = scratch.solution(AID)
    nb = ipynb.read(path)
    cell = nbformat.v4.new_markdown_cell("In one sentence: why are the scores scaled?\n\n"
                                         "### BEGIN SOLUTION\nTo keep the softmax out of saturation.\n### END SOLUTION")
    cell.id = "written-answer"
    cell.metadata["nbgrader"] = {"grade": True, "solution": True, "locked": False, "points": 2,
                                 "grade_id": WRITTEN, "schema_version": 3}
    nb.cells.insert(3, cell)
    ipynb.write(nb, path)


def _student(exchange, home, student, *args):
    """One of nbgrader's student commands, run in the student's home as a hub's server would.

    Each student has nbgrader's submission cache of their own (a hub's accounts do: it lies in
    their home), where fetch_feedback finds the secrets of what they handed in.
    """
    home.mkdir(parents=True, exist_ok=True)
    result = launch([*args, f"--student={student}", f"--course={COURSE_ID}", f"--Exchange.root={exchange}",
                     f"--Exchange.cache={home / '.nbgrader_cache'}"], home, tool_environment(), timeout=120)
    assert result.ok, result.log
    return result


def _hand_in(exchange, homes, student, answer):
    """Fetch the released assignment (once), fill it with `answer`, submit."""
    home = homes / student
    folder = home / AID
    if not folder.is_dir():
        _student(exchange, home, student, "fetch_assignment", AID)
    ipynb.write(answer, folder / f"{AID}.ipynb")
    _student(exchange, home, student, "submit", AID)


def _gradebook(root):
    return opened("sqlite:///" + str(root / "gradebook.db"), COURSE_ID)


@pytest.fixture(scope="module")
def term(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("term")
    exchange, homes = tmp / "exchange", tmp / "home"
    exchange.mkdir(mode=0o777)
    os.chmod(exchange, 0o777)
    scratch = make_scratch_root(COURSE, tmp / "course", [AID])
    with scratch.config_file.open("a") as config:
        config.write(f'\nc.Exchange.root = {str(exchange)!r}\nc.LateSubmissionPlugin.penalty_method = "zero"\n')
    _add_written_answer(scratch)
    generate(scratch, AID)
    assert run_nbgrader(scratch.root, "release_assignment", AID, "--force").ok
    with _gradebook(scratch.root) as gb:
        gb.update_or_create_student("dee", first_name="Dee", last_name="Roster")  # enrolled, hands in nothing

    release = ipynb.read(scratch.release(AID))
    solution = ipynb.read(scratch.solution(AID))
    right = submissions.perfect(release, solution)
    for cell in right.cells:
        if ipynb.nbgrader_meta(cell).get("grade_id") == WRITTEN:
            cell.source = "Large dot products push the softmax into regions of tiny gradients."
    mistake = next(e for e in load(COURSE, AID) if e.kind == "wrong")
    buggy = submissions.with_answers(release, right, {mistake.grade_id: mistake.path.read_text()})

    _hand_in(exchange, homes, "ana", right)
    _hand_in(exchange, homes, "ben", buggy)
    due = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    with _gradebook(scratch.root) as gb:
        gb.update_or_create_assignment(AID, duedate=due)
    time.sleep(1.1)
    _hand_in(exchange, homes, "cal", right)  # after the due date
    assert run_nbgrader(scratch.root, "collect", AID).ok
    graded = run_course("autograde", AID, cwd=scratch.root)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    return {"root": scratch.root, "exchange": exchange, "homes": homes, "right": right, "mistake": mistake}


def _total(page):
    """The total `Score: got / most` at the top of an nbgrader feedback page."""
    got, most = re.search(r"Score: ([0-9.]+) / ([0-9.]+)", page.read_text()).groups()
    return float(got), float(most)


def _rows(root):
    with (root / "reports" / "grades.csv").open() as handle:
        return {(r["student_id"], r["assignment"]): r for r in csv.DictReader(handle)}


@pytest.mark.slow
def test_the_gradebook_holds_what_nbgraders_autograde_would(term):
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory

    root = term["root"]
    with _gradebook(root) as gb:
        for student in ("ana", "ben", "cal"):
            submission = gb.find_submission(AID, student)
            stamp = (root / "submitted" / student / AID / "timestamp.txt").read_text()
            assert submission.timestamp is not None
            assert submission.timestamp.isoformat(sep=" ")[:19] == stamp.strip()[:19]
        cal = gb.find_submission(AID, "cal")
        assert cal.total_seconds_late > 0
        assert cal.late_submission_penalty == cal.score > 0, "penalty_method zero takes the whole score"
        assert gb.find_submission(AID, "ana").late_submission_penalty == 0
        written = gb.find_grade(WRITTEN, AID, AID, "ana")
        assert written.auto_score is None and written.needs_manual_grade
        assert gb.find_comment(WRITTEN, AID, AID, "ana").auto_comment is None
    coursedir = CourseDirectory(root=str(root), course_id=COURSE_ID)
    api = NbGraderAPI(coursedir=coursedir)
    assert api.get_autograded_students(AID) == {"ana", "ben", "cal"}, "the formgrader shows every submission graded"
    for student in ("ana", "ben", "cal"):
        autograded = root / "autograded" / student / AID
        for name in ("timestamp.txt", "submission_secret.txt"):
            assert (autograded / name).read_text() == (root / "submitted" / student / AID / name).read_text()


@pytest.mark.slow
def test_grades_csv_has_the_roster_the_time_and_the_penalty(term):
    rows = _rows(term["root"])
    assert rows["dee", AID]["status"] == "missing"
    assert rows["ana", AID]["timestamp"] and float(rows["ana", AID]["late_submission_penalty"]) == 0
    assert float(rows["cal", AID]["late_submission_penalty"]) == float(rows["cal", AID]["score"]) > 0
    assert f"for a grader to mark: {WRITTEN}" in rows["ana", AID]["detail"]
    assert WRITTEN not in rows["ana", AID]["detail"].split(";")[0], "a written answer is not a failed test"


@pytest.mark.slow
def test_a_regrade_keeps_what_a_grader_entered_unless_asked(term):
    root = term["root"]
    with _gradebook(root) as gb:
        grade = gb.find_grade(WRITTEN, AID, AID, "ana")
        grade.manual_score, grade.extra_credit = 1.5, 0.5
        gb.find_comment(WRITTEN, AID, AID, "ana").manual_comment = "Right idea; say which regions."
        gb.db.commit()
        before = gb.find_submission(AID, "ana").score
    regraded = run_course("autograde", AID, "--student", "ana", "--force", cwd=root)
    assert regraded.returncode == 0, regraded.stdout + regraded.stderr
    with _gradebook(root) as gb:
        grade = gb.find_grade(WRITTEN, AID, AID, "ana")
        assert (grade.manual_score, grade.extra_credit, grade.needs_manual_grade) == (1.5, 0.5, True)
        assert gb.find_comment(WRITTEN, AID, AID, "ana").manual_comment == "Right idea; say which regions."
        assert gb.find_submission(AID, "ana").score == before
    rows = _rows(root)
    assert float(rows["ana", AID]["score"]) == before, "grades.csv reads the grader's scores too"
    assert rows["ben", AID]["status"] == "graded", "a run for one student keeps the other rows"

    reset = run_course("autograde", AID, "--student", "ana", "--force", "--reset-manual", cwd=root)
    assert reset.returncode == 0, reset.stdout + reset.stderr
    with _gradebook(root) as gb:
        grade = gb.find_grade(WRITTEN, AID, AID, "ana")
        assert (grade.manual_score, grade.extra_credit) == (None, None)
        assert gb.find_comment(WRITTEN, AID, AID, "ana").manual_comment is None


@pytest.mark.slow
def test_feedback_reaches_the_student_through_the_exchange_also_after_a_resubmission(term):
    root, exchange, homes = term["root"], term["exchange"], term["homes"]
    made = run_course("feedback", AID, cwd=root)
    assert made.returncode == 0, made.stdout + made.stderr
    assert run_nbgrader(root, "release_feedback", AID).ok
    _student(exchange, homes / "ben", "ben", "fetch_feedback", AID)
    first = sorted((homes / "ben" / AID / "feedback").glob(f"*/{AID}.html"))
    assert len(first) == 1, "ben gets his own feedback, and only his"
    got, most = _total(first[0])
    assert got < most

    with _gradebook(root) as gb:  # an extension, so that the new score shows unpenalised
        gb.update_or_create_assignment(AID, duedate=datetime.datetime.now() + datetime.timedelta(days=1))
    _hand_in(exchange, homes, "ben", term["right"])  # ben fixes the bug and hands in again
    assert run_nbgrader(root, "collect", AID, "--update").ok
    regraded = run_course("autograde", AID, cwd=root)  # no --force: only ben's new submission is graded
    assert regraded.returncode == 0, regraded.stdout + regraded.stderr
    rows = _rows(root)
    assert rows["ben", AID]["detail"].startswith("all tests passed")
    again = run_course("feedback", AID, "--student", "ben", cwd=root)
    assert again.returncode == 0, again.stdout + again.stderr
    assert run_nbgrader(root, "release_feedback", AID, "--student=ben").ok
    _student(exchange, homes / "ben", "ben", "fetch_feedback", AID)
    pages = sorted((homes / "ben" / AID / "feedback").glob(f"*/{AID}.html"))
    assert len(pages) == 2, "the new submission's feedback arrives beside the first"
    newest = max(pages, key=lambda page: page.parent.name)
    assert _total(newest)[0] > got, "the new feedback is the new submission's"


@pytest.mark.slow
def test_the_formgraders_autograde_button_grades_through_the_course(term):
    from course_utils.grader.term.formgrader import grade_one

    root = term["root"]
    result = grade_one(root, AID, "cal")
    assert result["success"], result
    assert "course autograde" in result["log"] and "cal" in result["log"]
    with _gradebook(root) as gb:  # the extension granted above covers cal too: the regrade lifts the penalty
        cal = gb.find_submission(AID, "cal")
        assert cal.total_seconds_late == 0 and cal.late_submission_penalty == 0 and cal.score > 0
    assert _rows(root)["dee", AID]["status"] == "missing", "a button for one student keeps the class's report"
