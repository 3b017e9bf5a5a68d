"""nbgrader preprocessors the course adds to autograde, and the config that puts them in place.

Both work through nbgrader's own hook: `Autograde.sanitize_preprocessors` and
`Autograde.autograde_preprocessors`, set in each grading job's nbgrader_config.py by
`configure_autograde`. Whatever else the course's config sets for those lists is kept.
"""
from __future__ import annotations

from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.preprocessors import DeduplicateIds, LimitOutput, NbGraderPreprocessor
from traitlets import Integer
from traitlets.config import Config


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


def configure_autograde(config: Config, cell_timeout: int, max_lines: int = 200, max_traceback: int = 40,
                        max_chars: int = 20_000) -> Config:
    """Set up `config` (a job's `c`) for grading: time limit per cell, repairs, output limits."""
    config.Execute.timeout = cell_timeout
    config.Execute.kernel_name = "python3"
    config.Autograde.sanitize_preprocessors = _swapped(config, "sanitize_preprocessors",
                                                       {DeduplicateIds: KeepFirstGradeId})
    config.Autograde.autograde_preprocessors = _swapped(config, "autograde_preprocessors",
                                                        {LimitOutput: LimitOutputSize})
    # Megabytes of output stay in the student's kernel, not in the gradebook or feedback.
    config.LimitOutputSize.max_lines = max_lines
    config.LimitOutputSize.max_traceback = max_traceback
    config.LimitOutputSize.max_chars = max_chars
    return config
