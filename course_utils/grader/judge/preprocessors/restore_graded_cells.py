"""Every graded and locked cell as the gradebook knows it, whatever the submission did to it."""
from __future__ import annotations

import nbformat
from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbgrader.api import Gradebook
from nbgrader.preprocessors import ClearHiddenTests, NbGraderPreprocessor

from course_utils.grader.judge.sandbox import record


class RestoreGradedCells(NbGraderPreprocessor):
    """Every graded and locked cell as the gradebook knows it, whatever the submission did to it.

    nbgrader's OverwriteCells restores a test cell's source and points, but trusts the
    submission's flags: a test cell whose `grade` flag was switched off fails the checksum
    check and the whole notebook with it ("Please see the above traceback"), and a deleted
    test cell is simply not run. Here, before OverwriteCells, each cell known to the
    gradebook gets back its flags (grade, solution, locked, task) and points, a cell
    claiming an id the assignment does not have becomes an ordinary cell, and a locked cell
    that is missing is put back after the cell before it in the assignment, and a locked cell
    whose source differs from the release's gets the gradebook's source back (which OverwriteCells
    would do too, without a word). Each repair is reported, so the edit is flagged and the
    notebook is still graded.
    """

    def preprocess(self, nb: NotebookNode, resources: ResourcesDict) -> tuple[NotebookNode, ResourcesDict]:
        info = resources["nbgrader"]
        with Gradebook(info["db_url"]) as gradebook:
            notebook = gradebook.find_notebook(info["notebook"], info["assignment"])
            sources = [(c.name, c.cell_type, bool(c.locked), c.source) for c in notebook.source_cells]
            points = {c.name: float(c.max_score) for c in notebook.grade_cells}
            solutions = {c.name for c in notebook.solution_cells}
            tasks = {c.name for c in notebook.task_cells}
        known = {name: locked for name, _, locked, _ in sources}
        sources_by_name = {name: source for name, _, _, source in sources}
        for cell in nb.cells:
            meta = cell.metadata.get("nbgrader")
            if not meta:
                continue
            grade_id = meta.get("grade_id")
            if grade_id not in known:
                if any(meta.get(flag) for flag in ("grade", "solution", "locked", "task")):
                    record("restored", f"{grade_id!r} is not a cell of this assignment: graded as an ordinary cell")
                del cell.metadata["nbgrader"]
                continue
            expected = {"grade": grade_id in points, "solution": grade_id in solutions,
                        "locked": known[grade_id], "task": grade_id in tasks}
            changed = [flag for flag, value in expected.items() if bool(meta.get(flag, False)) != value]
            if grade_id in points and float(meta.get("points", -1) or 0) != points[grade_id]:
                changed.append("points")
            original = sources_by_name[grade_id]
            if known[grade_id] and _normalised(cell.source) not in (_released(original, self), _normalised(original)):
                changed.append("source")
                cell.source = original  # as OverwriteCells, next, would: the tests the assignment has
            if changed:
                meta.update(expected)
                if grade_id in points:
                    meta["points"] = points[grade_id]
                else:
                    meta.pop("points", None)
                record("restored", f"{grade_id}: {', '.join(changed)} put back as the assignment has them")
        self._put_back_missing(nb, sources, points, solutions)
        return nb, resources

    def _put_back_missing(self, nb: NotebookNode, sources: list[tuple[str, str, bool, str]],
                          points: dict[str, float], solutions: set[str]) -> None:
        for position, (name, cell_type, locked, source) in enumerate(sources):
            present = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells]
            if not locked or name in present:
                continue
            new = nbformat.v4.new_code_cell(source) if cell_type == "code" else nbformat.v4.new_markdown_cell(source)
            new.metadata.update(nbformat.from_dict({"deletable": False, "editable": False, "nbgrader": {
                "grade": name in points, "grade_id": name, "locked": True, "solution": name in solutions,
                "schema_version": 3, **({"points": points[name]} if name in points else {})}}))
            earlier = {n for n, *_ in sources[:position]}
            after = max((i for i, grade_id in enumerate(present) if grade_id in earlier), default=-1)
            nb.cells.insert(after + 1, new)
            record("restored", f"{name}: deleted, put back")


def _normalised(source: str) -> str:
    return "\n".join(line.rstrip() for line in (source or "").strip().splitlines())


def _released(source: str, parent: NbGraderPreprocessor) -> str:
    """A locked cell's source as the release has it: the gradebook's, hidden tests taken out."""
    cell = nbformat.v4.new_code_cell(source or "")
    cell.metadata["nbgrader"] = {"grade": True}  # ClearHiddenTests insists that hidden tests sit in grade cells
    ClearHiddenTests(parent=parent).preprocess_cell(cell, ResourcesDict(), 0)
    return _normalised(cell.source)
