"""Checks made on a submission before nbgrader sees it.

nbgrader fails a whole notebook on some student slips (a file that is not valid JSON, a
copied cell's duplicate grade id). Here each submission is read defensively: what cannot be
graded becomes a clear error for that student alone, and a repair becomes a note and a flag.
The repairs themselves run inside nbgrader, as preprocessors
(`course_utils.grader.judge.preprocessors`); what the student's code reaches for is the source
screen's (`course_utils.grader.judge.screen`).
"""
from __future__ import annotations

import errno
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from course_utils.ipynb import nbgrader_meta

if TYPE_CHECKING:
    from nbformat import NotebookNode


class BrokenSubmission(Exception):
    """The submission cannot be graded; the message says why, for the student."""


@dataclass
class Prepared:
    notebook_json: str                                   # the notebook as nbformat 4 JSON
    flags: list[str] = field(default_factory=list)       # for the instructor
    notes: list[str] = field(default_factory=list)       # for the student's detail line


def locate(folder: Path, aid: str, top: Path | None = None) -> tuple[Path | None, str | None]:
    """The student's notebook for `aid` in `folder` and a note; a lone misnamed notebook counts.

    (path, None): the notebook as named; (path, note): a lone notebook of another name, which is
    graded, and the note says so; (None, None): nothing handed in; (None, note): something was
    handed in, but no one notebook can be taken for `aid`, and the note says what was there.

    A notebook must be a regular file in the student's own folder: a link to a file (another
    student's notebook) is not taken, nor is anything in a folder that is a link, from `top` (the
    course's submitted/ folder) down to `folder`; the note says what to change.
    """
    linked = _linked_folder(folder, top)
    if linked:
        return None, f"{linked} is a link to another folder, not a folder of its own: hand in your own folder"
    expected = folder / f"{aid}.ipynb"
    if expected.is_symlink():
        return None, f"{expected.name} is a link, not a notebook of its own: hand in the notebook file itself"
    if expected.is_file():
        return expected, None
    if not folder.is_dir():
        return None, None
    found = sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))
    notebooks = [name for name in found if name.endswith(".ipynb") and (folder / name).is_file()]
    if len(notebooks) == 1 and (folder / notebooks[0]).is_symlink():
        return None, f"{notebooks[0]} is a link, not a notebook of its own: hand in the notebook file itself"
    if len(notebooks) == 1:
        return folder / notebooks[0], f"graded {notebooks[0]} in place of {expected.name}"
    if not found:
        return None, None
    shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
    what = f"{len(notebooks)} notebooks" if notebooks else "no notebook"
    return None, (f"handed in {what} ({shown}) and none named {expected.name}: "
                  f"rename the one to grade to {expected.name}")


def _linked_folder(folder: Path, top: Path | None) -> str:
    """The first folder below `top`, down to `folder`, that is a link, named from `top`'s parent ("" if none)."""
    try:
        parts = folder.relative_to(top).parts if top is not None else None
    except ValueError:
        parts = None
    if not parts:   # no `top`, or `folder` not below it: the folder itself
        return folder.name if folder.is_symlink() else ""
    here = top
    for part in parts:
        here = here / part
        if here.is_symlink():
            return str(here.relative_to(top.parent))
    return ""


def read_submission(path: Path, top: Path | None = None) -> bytes:
    """The bytes of the notebook `locate` found, opened without following a link anywhere below `top`.

    Every folder from `top` down is opened with O_NOFOLLOW, and the file too, and it must be a
    regular file: a folder or file replaced by a link after `locate` looked is refused as well
    (BrokenSubmission, saying what to change), and a FIFO cannot make the grader wait.
    """
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        parts = path.relative_to(top).parts if top is not None else None
    except ValueError:
        parts = None
    start, parts = (top, parts) if parts else (path.parent, (path.name,))
    folder = os.open(start, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in parts[:-1]:
            below = os.open(name, os.O_RDONLY | os.O_DIRECTORY | nofollow, dir_fd=folder)
            os.close(folder)
            folder = below
        handle = os.open(parts[-1], os.O_RDONLY | nofollow | os.O_NONBLOCK, dir_fd=folder)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise BrokenSubmission(f"{path.name} or its folder is a link, not the student's own: hand in the "
                                   "notebook file itself, in a folder of your own") from None
        raise BrokenSubmission(f"{path.name} could not be read ({error.strerror})") from None
    finally:
        os.close(folder)
    with os.fdopen(handle, "rb") as opened:
        if not stat.S_ISREG(os.fstat(opened.fileno()).st_mode):
            raise BrokenSubmission(f"{path.name} is not a regular file: hand in the notebook file itself")
        return opened.read()


def read_notebook(raw: bytes, name: str) -> NotebookNode:
    """The notebook in `raw` (the bytes of a file called `name`), or BrokenSubmission saying why not."""
    import nbformat

    if not raw.strip():
        raise BrokenSubmission(f"{name} is empty.")
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BrokenSubmission(f"{name} is not valid notebook JSON ({error}); it may be truncated "
                               "or edited outside Jupyter. Re-download and resubmit it.") from None
    try:
        nb = nbformat.reads(json.dumps(data), as_version=4)  # joins list-valued sources too
        nbformat.validate(nb)
    except Exception as error:  # noqa: BLE001  (nbformat raises several kinds)
        raise BrokenSubmission(f"{name} is not a valid Jupyter notebook: "
                               f"{str(error).splitlines()[0]}") from None
    return nb


def duplicate_grade_ids(nb: NotebookNode) -> list[str]:
    """A note per cell that repeats an earlier cell's grade id (a copied cell).

    Such a copy keeps running as an ordinary cell (preprocessors.KeepFirstGradeId).
    """
    seen, notes = set(), []
    for cell in nb.cells:
        grade_id = nbgrader_meta(cell).get("grade_id")
        if grade_id is None:
            continue
        if grade_id in seen:
            notes.append(f"a copy of cell {grade_id} was kept as an ordinary cell")
        seen.add(grade_id)
    return notes


def prepare(raw: bytes, name: str) -> Prepared:
    """Read and inspect one submission; raise BrokenSubmission if it cannot be graded."""
    import nbformat

    nb = read_notebook(raw, name)
    notes = duplicate_grade_ids(nb)
    flags = ["duplicate grade ids: " + "; ".join(notes)] if notes else []
    return Prepared(nbformat.writes(nb), flags, notes)
