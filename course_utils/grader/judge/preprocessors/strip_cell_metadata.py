"""Cells run as the gradebook has them: no tag or metadata of the student's decides how a cell runs."""
from __future__ import annotations

import nbformat
from nbconvert.exporters.exporter import ResourcesDict
from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor


class StripCellMetadata(NbGraderPreprocessor):
    """Every cell the gradebook knows keeps only its nbgrader metadata; every other code cell loses its tags.

    A cell's metadata is the student's to edit, and nbclient acts on some of it when it runs the
    notebook: a `skip-execution` tag skips a cell (a test cell that never runs never fails) and
    `raises-exception` lets a cell fail without stopping anything. nbgrader's own repairs restore a
    graded cell's source and nbgrader metadata, not the rest. Run after them (`configure_autograde`
    puts it after OverwriteCells), this leaves a graded cell with nothing but what the gradebook
    gave it, and no code cell with a tag.
    """

    def preprocess_cell(self, cell: NotebookNode, resources: ResourcesDict,
                        index: int) -> tuple[NotebookNode, ResourcesDict]:
        meta = cell.get("metadata", {})
        if "nbgrader" in meta:
            cell.metadata = nbformat.from_dict({"nbgrader": meta["nbgrader"]})
        elif cell.cell_type == "code":
            meta.pop("tags", None)
        return cell, resources
