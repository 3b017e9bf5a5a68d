"""nbgrader preprocessors the course adds to autograde, and the config that puts them in place.

They work through nbgrader's own hook: `Autograde.sanitize_preprocessors` and
`Autograde.autograde_preprocessors`, set in each grading job's nbgrader_config.py by
`configure_autograde`. Whatever else the course's config sets for those lists is kept.
What they repair is written to the job's report (COURSE_SANDBOX_REPORT), which becomes flags.
"""
from __future__ import annotations

import nbformat
from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.api import Gradebook
from nbgrader.preprocessors import (
    ClearHiddenTests,
    DeduplicateIds,
    LimitOutput,
    NbGraderPreprocessor,
    OverwriteCells,
)
from traitlets import Integer
from traitlets.config import Config

from course_utils.grader.judge.sandbox import record


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


class LimitOutputSize(LimitOutput):
    """nbgrader's LimitOutput (lines per cell, traceback lines), plus characters per output.

    LimitOutput counts lines only: one 20-MB line passes it and lands in the gradebook's
    notebook and the feedback page.
    """

    max_chars = Integer(20_000, help="characters kept of each text output (-1: no limit)").tag(config=True)

    def _cut(self, text: str) -> str:
        if self.max_chars < 0 or len(text) <= self.max_chars:
            return text
        return text[:self.max_chars] + f"\n... [{len(text) - self.max_chars} more characters cut by the grader]\n"

    def preprocess_cell(self, cell: NotebookNode, resources: ResourcesDict,
                        cell_index: int) -> tuple[NotebookNode, ResourcesDict]:
        cell, resources = super().preprocess_cell(cell, resources, cell_index)
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = self._cut(output["text"])
            for kind, value in output.get("data", {}).items():
                if isinstance(value, str) and kind.startswith("text/"):
                    output["data"][kind] = self._cut(value)
        return cell, resources


def _swapped(config: Config, trait: str, swaps: dict[type, type]) -> list:
    """The course's Autograde.<trait> list (nbgrader's default when unset) with classes swapped."""
    from nbgrader.converters import Autograde
    from traitlets.config.loader import LazyConfigValue

    default = Autograde.class_traits()[trait].default()
    current = config.Autograde[trait] if trait in config.Autograde else default
    if isinstance(current, LazyConfigValue):  # the course's config appended to nbgrader's list
        current = current.get_value(default)
    return [swaps.get(pp, pp) for pp in current]


def configure_autograde(config: Config, cell_timeout: int, sockets: str = "", max_lines: int = 200,
                        max_traceback: int = 40, max_chars: int = 20_000) -> Config:
    """Set up `config` (a job's `c`) for grading: time limit per cell, repairs, output limits, and
    the kernel reached over Unix sockets at `sockets`-N (the sandboxed kernel has no network)."""
    config.Execute.timeout = cell_timeout
    if sockets:
        config.KernelManager.transport = "ipc"
        config.KernelManager.ip = sockets
    # nbclient's 60 s to start a kernel is not the student's time: on a loaded machine a graded
    # kernel (sandbox, isolation) can take longer. The job's own limit still holds.
    config.Execute.startup_timeout = max(120, cell_timeout)
    config.Execute.kernel_name = "python3"
    sanitize = _swapped(config, "sanitize_preprocessors", {DeduplicateIds: KeepFirstGradeId})
    if OverwriteCells in sanitize and RestoreGradedCells not in sanitize:
        sanitize.insert(sanitize.index(OverwriteCells), RestoreGradedCells)
    config.Autograde.sanitize_preprocessors = sanitize
    config.Autograde.autograde_preprocessors = _swapped(config, "autograde_preprocessors",
                                                        {LimitOutput: LimitOutputSize})
    # Megabytes of output stay in the student's kernel, not in the gradebook or feedback.
    config.LimitOutputSize.max_lines = max_lines
    config.LimitOutputSize.max_traceback = max_traceback
    config.LimitOutputSize.max_chars = max_chars
    return config
