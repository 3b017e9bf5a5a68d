"""Made-up submissions from the course's own notebooks."""
import pytest

from conftest import COURSE, IDS
from course_utils import ipynb
from course_utils.qa.submissions import blank, perfect, strip_solution_markers, with_answers

AID = IDS[1]


def _notebooks():
    return ipynb.read(COURSE.release(AID)), ipynb.read(COURSE.solution(AID))


def test_perfect_fills_every_answer_cell_without_markers_and_changes_nothing_else():
    release, solution = _notebooks()
    nb = perfect(release, solution)
    answers = ipynb.answer_cells(nb)
    assert answers and all("NotImplementedError" not in c.source and "### BEGIN" not in c.source
                           for c in answers.values() if c.cell_type == "code")
    assert [c.id for c in nb.cells] == [c.id for c in release.cells]
    assert "NotImplementedError" in ipynb.answer_cells(release)[next(iter(answers))].source, "the release is untouched"


def test_blank_is_the_release_and_with_answers_swaps_one_cell():
    release, solution = _notebooks()
    assert blank(release, solution) == release
    grade_id = next(iter(ipynb.answer_cells(release)))
    nb = with_answers(release, solution, {grade_id: "x = 1"})
    assert ipynb.answer_cells(nb)[grade_id].source == "x = 1"
    with pytest.raises(KeyError, match="no answer cell with grade_id 'nope'"):
        with_answers(release, solution, {"nope": ""})


def test_strip_solution_markers():
    assert strip_solution_markers("a\n    ### BEGIN SOLUTION\nb\n    ### END SOLUTION\nc") == "a\nb\nc"
