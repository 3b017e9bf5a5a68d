"""Every grader, proven through real nbgrader with the course's bug catalogue.

Per assignment: the perfect submission scores full marks, the blank release scores 0,
every catalogued wrong answer loses points and every catalogued right answer (written
differently from the solution) keeps full marks.
"""
import ast

import nbformat
import pytest

from conftest import COURSE, IDS
from course_utils import catalogue
from course_utils.report import catalogue_table
from course_utils.submissions import answer_cells

MIN_WRONG, MIN_RIGHT = 4, 2


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


@pytest.mark.slow
@pytest.mark.parametrize("aid", IDS)
def test_graders_catch_wrong_answers_and_accept_right_ones(aid):
    verdicts = catalogue.run_assignment(COURSE, aid)
    misses = [v for v in verdicts if not v.ok]
    assert not misses, "\n" + catalogue_table(misses) + "\n\n" + "\n".join(v.detail for v in misses)
