"""Every grader, proven through the path students' grades take, with the course's bug catalogue.

Each entry is graded by `course autograde`'s own pipeline (sanitized submission, private
job, sandboxed kernel, limits). Per assignment: the perfect submission scores full marks,
the blank release scores 0, every catalogued wrong answer loses points and every catalogued
right answer (written differently from the solution) keeps full marks.
"""
import ast
import json

import nbformat
import pytest

from conftest import COURSE, IDS, ROOT, hidden_test_lines
from course_utils.ipynb import answer_cells
from course_utils.qa import catalogue

MIN_WRONG, MIN_RIGHT = 4, 2
MIN_SEEN = 2 / 3  # the share of an exercise's wrong answers its visible tests alone must catch
TESTING = (ROOT / "docs" / "testing.md").read_text()   # the tables of what the graders catch


def _exercises(aid):
    nb = nbformat.read(str(COURSE.solution(aid)), as_version=4)
    return [g for g, c in answer_cells(nb).items() if c.cell_type == "code"]


@pytest.mark.parametrize("aid", IDS)
def test_catalogue_covers_every_exercise(aid):
    entries = catalogue.load(COURSE, aid)
    for grade_id in _exercises(aid):
        wrong = [e for e in entries if e.grade_id == grade_id and e.kind == "wrong"]
        right = [e for e in entries if e.grade_id == grade_id and e.kind == "right"]
        assert len(wrong) >= MIN_WRONG and len(right) >= MIN_RIGHT, \
            f"{aid}/{grade_id}: {len(wrong)} wrong and {len(right)} right entries"
    unknown = {e.grade_id for e in entries} - set(_exercises(aid))
    assert not unknown, f"catalogue folders that match no answer cell: {unknown}"


@pytest.mark.parametrize("aid", IDS)
def test_catalogue_entries_are_documented_answers(aid):
    for entry in catalogue.load(COURSE, aid):
        source = entry.path.read_text()
        assert "### BEGIN SOLUTION" not in source and "### END SOLUTION" not in source
        assert entry.doc, f"{entry.path} needs a docstring naming the mistake or variant"
        ast.parse(source)


def _hidden_only_lines(aid):
    """Lines of hidden tests that appear nowhere in the student release (so must never be shown)."""
    released = COURSE.release(aid).read_text()
    return {ln for ln in hidden_test_lines(aid, 25) if json.dumps(ln)[1:-1] not in released}


def _message_problems(aid, verdicts):
    """Failing tests must say what property failed, and show no expected value or hidden code."""
    hidden = _hidden_only_lines(aid)
    problems = []
    for verdict in verdicts:
        for cell, (name, message, traceback) in (verdict.messages or {}).items():
            where = f"{verdict.entry} / {cell}"
            # A bare `assert x` says nothing; a message of a few words names the property
            # (a student's own assert, e.g. "d_model must be even", passes this too).
            if name == "AssertionError" and len(message.split()) < 3:
                problems.append(f"{where}: an assertion without a teaching message: {message!r}")
            if "tensor(" in message or "array(" in message:
                problems.append(f"{where}: the message prints tensor values: {message[:120]!r}")
            leaked = [ln for ln in hidden if ln in traceback or ln in message]
            if leaked:
                problems.append(f"{where}: the traceback shows hidden test code: {leaked[0]!r}")
    return problems


@pytest.mark.slow
@pytest.mark.parametrize("aid", IDS)
def test_graders_catch_wrong_answers_and_accept_right_ones(aid):
    verdicts = catalogue.run(COURSE, [aid], workers=1)  # xdist runs two notebooks at once
    misses = [v for v in verdicts if not v.ok]
    assert not misses, "\n" + catalogue.table(misses) + "\n\n" + "\n".join(v.detail for v in misses)
    problems = _message_problems(aid, [v for v in verdicts if v.expected == "less"])
    assert not problems, "\n".join(problems[:20])

    # The visible tests teach: most mistakes show up before the student hands in. The
    # table in docs/testing.md states each exercise's measured rates.
    for rate in catalogue.rates(verdicts):
        unseen = [v.entry for v in verdicts if v.exercise == rate.exercise and v.expected == "less" and not v.seen]
        assert rate.seen >= MIN_SEEN * rate.wrong, \
            f"{rate.exercise}: the visible tests catch {rate.seen} of {rate.wrong}; they miss {unseen}"
        row = f"| {aid} | {rate.exercise} | {rate.wrong} | {rate.caught} | {rate.seen} |"
        assert row in TESTING, f"update the visible-test table of docs/testing.md: {row}"
