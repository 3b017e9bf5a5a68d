"""Provided cells that carry an earlier notebook's reference answer stay identical to it.

Later notebooks never depend on a student's earlier answers: they get the pieces they
need as locked cells tagged `course.provided_from = "<id>/<grade_id>"`.
"""
import pytest

from conftest import COURSE, IDS
from course_utils.ipynb import answer_cells, read
from course_utils.qa.submissions import strip_solution_markers


def _provided(aid):
    return [(aid, cell) for cell in read(COURSE.solution(aid)).cells
            if "provided_from" in cell.metadata.get("course", {})]


PROVIDED = [pair for aid in IDS for pair in _provided(aid)]


@pytest.mark.parametrize("aid, cell", PROVIDED,
                         ids=[f"{aid}:{c.metadata['course']['provided_from']}" for aid, c in PROVIDED])
def test_provided_copy_matches_its_solution(aid, cell):
    origin, grade_id = cell.metadata["course"]["provided_from"].split("/")
    assert origin < aid, "a notebook may only carry pieces of earlier notebooks"
    reference = strip_solution_markers(answer_cells(read(COURSE.solution(origin)))[grade_id].source)
    body = cell.source.split("\n", 1)[1]  # after the "# Provided: ..." header line
    assert body == reference, f"{aid} carries an outdated copy of {origin}/{grade_id}: rebuild it"
    nbgrader = cell.metadata["nbgrader"]
    assert nbgrader["locked"] and not nbgrader["solution"] and not nbgrader["grade"]
