"""Submissions made from the course's own notebooks: perfect, blank, and with swapped answers.

Used by `course demo`, `course catalogue` and the tests. A submission starts from the
student release (what a student downloads) and fills its answer cells.
"""
import copy
import re
from pathlib import Path

import nbformat

SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


def nbgrader_meta(cell):
    return cell.get("metadata", {}).get("nbgrader", {})


def answer_cells(nb):
    """{grade_id: cell} of the cells students write in."""
    return {nbgrader_meta(c)["grade_id"]: c for c in nb.cells if nbgrader_meta(c).get("solution")}


def strip_solution_markers(source):
    """The instructor's answer as a student would have typed it: the markers removed."""
    return "\n".join(line for line in source.splitlines()
                     if line.strip() not in SOLUTION_MARKERS)


def perfect(release_nb, solution_nb):
    """The release with every answer cell filled from the solutions."""
    nb = copy.deepcopy(release_nb)
    answers = answer_cells(solution_nb)
    for grade_id, cell in answer_cells(nb).items():
        cell.source = strip_solution_markers(answers[grade_id].source)
    return nb


def with_answers(release_nb, solution_nb, replacements):
    """The perfect submission with some answer cells replaced: {grade_id: source}."""
    nb = perfect(release_nb, solution_nb)
    cells = answer_cells(nb)
    for grade_id, source in replacements.items():
        if grade_id not in cells:
            raise KeyError(f"no answer cell with grade_id {grade_id!r}; answer cells: {sorted(cells)}")
        cells[grade_id].source = source
    return nb


def read(path):
    return nbformat.read(str(path), as_version=4)


def write(nb, path):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    return path


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def strip_ansi(text):
    """`text` without the terminal colour codes that kernels put in tracebacks."""
    return _ANSI.sub("", text)
