"""A cell that repeats an earlier cell's grade id becomes an ordinary cell (instead of failing the notebook)."""
from __future__ import annotations

from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import NbGraderPreprocessor


class KeepFirstGradeId(NbGraderPreprocessor):
    """A cell that repeats an earlier cell's grade id (a student's copy) becomes an ordinary cell.

    Replaces nbgrader's DeduplicateIds, which keeps the *last* copy and leaves `nbgrader: {}`
    on the others; OverwriteCells then fails the whole notebook on that empty dict
    (KeyError 'grade_id', nbgrader 0.9.6). Here the first copy, where the notebook put the
    cell, stays graded, and the metadata of later copies is removed entirely.
    """

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        seen = set()
        for cell in nb.cells:
            if not (utils.is_grade(cell) or utils.is_solution(cell) or utils.is_locked(cell)):
                continue
            grade_id = cell.metadata.nbgrader.get("grade_id")
            if grade_id in seen:
                self.log.warning("Cell with id '%s' exists multiple times: the copy is an ordinary cell", grade_id)
                del cell.metadata["nbgrader"]
            seen.add(grade_id)
        return nb, resources
