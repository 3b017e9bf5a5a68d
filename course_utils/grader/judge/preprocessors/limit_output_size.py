"""nbgrader's LimitOutput, plus a limit on the characters of each output."""
from __future__ import annotations

from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbgrader.preprocessors import LimitOutput
from traitlets import Integer


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
