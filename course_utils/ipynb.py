"""Reading and writing .ipynb files and their nbgrader metadata.

Shared by the grader, the QA tools and the CLI; the student's kernel never needs it.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nbformat import NotebookNode

# nbformat is imported where a notebook is read or written: its JSON-schema validator takes
# seconds to import, which the CLI would otherwise pay before it even parses its arguments.


def skip_iri_format_checker() -> None:
    """Make this process's jsonschema import skip its "iri" format checker (call before nbformat loads).

    jsonschema loads the optional package rfc3987_syntax, which compiles three Earley
    grammars at import: 2 to 3 s in every process that reads a notebook (each nbgrader run,
    each grading job). It is used only to check strings of format "iri", which the notebook
    schema never uses; jsonschema skips the check when the import fails, as it does here.
    """
    sys.modules.setdefault("rfc3987_syntax", None)


def read(path: str | Path) -> NotebookNode:
    import nbformat

    return nbformat.read(str(path), as_version=4)


def reads(text: str) -> NotebookNode:
    import nbformat

    return nbformat.reads(text, as_version=4)


def write(nb: NotebookNode, path: str | Path) -> Path:
    """Write `nb` to `path`, making its folder first."""
    import nbformat

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))
    return path


def nbgrader_meta(cell: dict) -> dict:
    """A cell's nbgrader metadata ({} for a cell nbgrader does not track)."""
    return cell.get("metadata", {}).get("nbgrader", {})


def answer_cells(nb: NotebookNode) -> dict[str, NotebookNode]:
    """{grade_id: cell} of the cells students write in."""
    return {nbgrader_meta(c)["grade_id"]: c for c in nb.cells if nbgrader_meta(c).get("solution")}


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def strip_ansi(text: str) -> str:
    """`text` without the terminal colour codes that kernels put in tracebacks."""
    return _ANSI.sub("", text)
