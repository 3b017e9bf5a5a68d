"""`course feedback`: every page it can write, one line per student whose page failed, exit codes a cron
job can read, the gradebook `--db-url` names (PostgreSQL included), and the nbformat-3 submission that
once failed the whole class.

One small class of notebook 01 is graded once (module fixture): a perfect submission, the same saved
as nbformat 3, and a student whose autograded notebook is then damaged, so that their page cannot be
written.
"""
import copy
import re

import nbformat
import pytest
from nbconvert import HTMLExporter
from traitlets.config import Config

from conftest import COURSE, run_course
from course_utils import ipynb
from course_utils.grader.term.feedback import RestoreAttachments, error_log, failure_reason
from course_utils.qa import submissions as S
from course_utils.qa.sample_class import write_class

AID = "01_queries_keys_values"
NOT_JSON = b'{"cells": [\n'


def _v3(release, solution):
    """The perfect submission as a tool that saves nbformat 3 leaves it (no cell attachments there)."""
    return nbformat.writes(nbformat.convert(S.perfect(copy.deepcopy(release), solution), 3)).encode()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    scratch = write_class(COURSE, [AID], tmp_path_factory.mktemp("feedback"), lambda _, release, solution: {
        "a_perfect": S.perfect(copy.deepcopy(release), solution), "b_nbformat3": _v3(release, solution)})
    (scratch.root / "submitted" / "c_damaged" / AID).mkdir(parents=True)
    result = run_course("autograde", "--workers", "2", cwd=scratch.root)
    assert result.returncode == 0, result.stdout + result.stderr
    damaged = scratch.autograded("c_damaged", AID)
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(NOT_JSON)  # a file that is no longer a notebook: a disk, an editor, a hand
    return scratch


def _page(scratch, student):
    return scratch.feedback(student, AID)


@pytest.mark.slow
def test_a_page_that_cannot_be_written_costs_only_its_student(graded):
    result = run_course("feedback", cwd=graded.root)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Score" in _page(graded, "a_perfect").read_text()
    assert not _page(graded, "c_damaged").exists()
    failed = [line for line in result.stderr.splitlines() if line.startswith("  ")]
    assert len(failed) == 1 and failed[0].startswith(f"  c_damaged ({AID}): NotJSONError: "), result.stderr
    log = error_log(graded, AID, "c_damaged")
    assert f"[log: {log.relative_to(graded.root)}]" in failed[0]
    assert re.search(r"^\s*nbformat\.reader\.NotJSONError: Notebook does not appear to be JSON", log.read_text(),
                     re.M), "the reason is a whole line of nbgrader's log"


@pytest.mark.slow
def test_an_nbformat3_submission_gets_its_page_with_the_courses_figure(graded):
    """nbformat 3 has no cell attachments: the figure of the release is given back for the page."""
    assert ipynb.read(graded.autograded("b_nbformat3", AID)).cells[1].get("attachments") is None
    result = run_course("feedback", "--student", "b_nbformat3", cwd=graded.root)
    assert result.returncode == 0, result.stdout + result.stderr
    page = _page(graded, "b_nbformat3").read_text()
    assert "Score" in page and "data:image/png;base64" in page
    assert not _page(graded, "c_damaged").exists() and not error_log(graded, AID, "b_nbformat3").exists()


@pytest.mark.slow
def test_nothing_to_do_nothing_written_or_no_gradebook_is_exit_2(graded):
    nobody = run_course("feedback", "--student", "nobody", cwd=graded.root)
    assert nobody.returncode == 2 and "No graded submissions of nobody" in nobody.stderr
    alone = run_course("feedback", "--student", "c_damaged", cwd=graded.root)
    assert alone.returncode == 2, alone.stdout + alone.stderr
    assert "no feedback page could be written" in alone.stderr and f"  c_damaged ({AID}): NotJSONError" in alone.stderr
    unopenable = run_course("feedback", "--db-url", "sqlite:////nonexistent/gradebook.db", cwd=graded.root)
    assert unopenable.returncode == 2, unopenable.stdout + unopenable.stderr
    assert re.search(r"no feedback page could be written \(3 graded submissions\): OperationalError: .*unable to open",
                     unopenable.stderr), unopenable.stderr


@pytest.mark.slow
def test_reading_another_gradebook_than_the_one_graded_into_warns(graded, tmp_path):
    other = f"sqlite:///{tmp_path / 'other.db'}"
    same = run_course("export", cwd=graded.root)
    assert same.returncode == 0 and "warning" not in same.stderr, same.stderr
    result = run_course("export", "--db-url", other, cwd=graded.root)
    assert f"this command reads {other}" in result.stderr and "was graded into sqlite:///" in result.stderr
    assert result.returncode == 2 and "No grades to export" in result.stderr, "and the empty gradebook is refused"


def test_a_lost_attachment_is_given_back_from_the_release_and_a_students_own_stays_missing(tmp_path):
    release = COURSE.release(AID)
    nb = nbformat.convert(nbformat.convert(ipynb.read(release), 3), 4)
    nb.cells.append(nbformat.v4.new_markdown_cell("my sketch ![sketch](attachment:sketch.png)"))
    config = Config()
    config.HTMLExporter.preprocessors = [RestoreAttachments]
    config.RestoreAttachments.release = str(release)
    with pytest.raises(Exception, match="missing attachment: figure1.png"):
        HTMLExporter().from_notebook_node(copy.deepcopy(nb))
    with pytest.raises(Exception, match="missing attachment: sketch.png"):
        HTMLExporter(config=config).from_notebook_node(copy.deepcopy(nb))
    nb.cells.pop()
    html, _ = HTMLExporter(config=config).from_notebook_node(nb)
    assert "data:image/png;base64" in html


def test_a_reason_is_one_whole_line_cut_at_its_end():
    log = ("[GenerateFeedbackApp | INFO] Converting notebook x.ipynb\n"
           "[GenerateFeedbackApp | ERROR] There was an error processing assignment: /c/autograded/ana/01_x\n"
           "[GenerateFeedbackApp | ERROR] Traceback (most recent call last):\n"
           "      File \"a.py\", line 1, in f\n"
           "        raise ValueError('first')\n"
           "    ValueError: first\n"
           "    \n"
           "    During handling of the above exception, another exception occurred:\n"
           "    \n"
           "    Traceback (most recent call last):\n"
           "      File \"b.py\", line 2, in g\n"
           "        raise Broken(text)\n"
           "    some.module.Broken: the notebook is broken: " + "x" * 300 + "\n"
           "    \tand a second line of the message, indented\n"
           "[GenerateFeedbackApp | ERROR] There was an error processing assignment '01_x' for student 'ana'\n")
    reason = failure_reason(log)
    assert reason.startswith("Broken: the notebook is broken: xxx") and reason.endswith("...") and len(reason) <= 240
    assert failure_reason("[GenerateFeedbackApp | ERROR] One or more notebooks use an old version\n  of it\n"
                          "[GenerateFeedbackApp | ERROR] Please see the error log\n") == \
        "One or more notebooks use an old version"


@pytest.mark.slow
def test_feedback_and_export_read_the_postgresql_gradebook_graded_into(graded, postgres_url):
    """Last in this module: it leaves the class graded into PostgreSQL."""
    grade = run_course("autograde", "--student", "a_perfect", "--force", "--db-url", postgres_url, cwd=graded.root)
    assert grade.returncode == 0, grade.stdout + grade.stderr
    _page(graded, "a_perfect").unlink(missing_ok=True)
    made = run_course("feedback", "--student", "a_perfect", "--db-url", postgres_url, cwd=graded.root)
    assert made.returncode == 0 and "warning" not in made.stderr, made.stdout + made.stderr
    assert "Score: 12.0 / 12.0" in _page(graded, "a_perfect").read_text()
    exported = run_course("export", "--db-url", postgres_url, cwd=graded.root)
    assert exported.returncode == 0, exported.stdout + exported.stderr
    rows = (graded.root / "reports" / "canvas.csv").read_text().splitlines()
    assert rows[0].endswith(AID) and rows[2:] == ["a_perfect,,,a_perfect,,12"]
    config_s = run_course("export", "--to", graded.root / "reports" / "sqlite.csv", cwd=graded.root)
    assert config_s.returncode == 0 and f"was graded into {postgres_url}" in config_s.stderr, config_s.stderr
