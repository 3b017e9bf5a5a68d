"""Submissions made from the course's own notebooks: perfect, blank, and with swapped answers.

Used by `course demo`, `course catalogue`, the benchmarks and the tests. A submission starts
from the student release (what a student downloads) and fills its answer cells.
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from course_utils.ipynb import answer_cells

if TYPE_CHECKING:
    from nbformat import NotebookNode

SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def strip_solution_markers(source: str) -> str:
    """The instructor's answer as a student would have typed it: the markers removed."""
    return "\n".join(line for line in source.splitlines()
                     if line.strip() not in SOLUTION_MARKERS)


def blank(release_nb: NotebookNode, solution_nb: NotebookNode) -> NotebookNode:
    """The release as downloaded: every answer cell still raises NotImplementedError."""
    return copy.deepcopy(release_nb)


def perfect(release_nb: NotebookNode, solution_nb: NotebookNode) -> NotebookNode:
    """The release with every answer cell filled from the solutions."""
    nb = copy.deepcopy(release_nb)
    answers = answer_cells(solution_nb)
    for grade_id, cell in answer_cells(nb).items():
        cell.source = strip_solution_markers(answers[grade_id].source)
    return nb


def with_answers(release_nb: NotebookNode, solution_nb: NotebookNode, replacements: dict[str, str]) -> NotebookNode:
    """The perfect submission with some answer cells replaced: {grade_id: source}."""
    nb = perfect(release_nb, solution_nb)
    cells = answer_cells(nb)
    for grade_id, source in replacements.items():
        if grade_id not in cells:
            raise KeyError(f"no answer cell with grade_id {grade_id!r}; answer cells: {sorted(cells)}")
        cells[grade_id].source = source
    return nb
