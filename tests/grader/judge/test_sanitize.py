"""Reading a submission defensively: what cannot be graded says why; a repair is noted and flagged."""
import json
import os

import nbformat
import pytest

from course_utils.grader.judge.sanitize import (
    BrokenSubmission,
    duplicate_grade_ids,
    locate,
    prepare,
    read_notebook,
    read_submission,
)


def _notebook(*cells):
    nb = nbformat.v4.new_notebook(cells=list(cells))
    return nb


def _answer(grade_id, source="x = 1"):
    return nbformat.v4.new_code_cell(source, metadata={"nbgrader": {"grade_id": grade_id, "solution": True,
                                                                    "grade": False, "locked": False}})


@pytest.mark.parametrize("raw, says", [
    (b"", "is empty"),
    (b"   \n", "is empty"),
    (b'{"cells": [', "not valid notebook JSON"),
    (b"\x89PNG\r\n", "not valid notebook JSON"),
    (json.dumps({"cells": "nope"}).encode(), "not a valid Jupyter notebook"),
])
def test_broken_files_are_named_with_what_to_do(raw, says):
    with pytest.raises(BrokenSubmission, match=says):
        read_notebook(raw, "01_x.ipynb")


def test_an_old_but_valid_notebook_is_read_as_nbformat_4():
    old = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1")])
    old.nbformat_minor = 4
    for cell in old.cells:
        cell.pop("id", None)
    nb = read_notebook(nbformat.writes(old).encode(), "old.ipynb")
    assert nb.nbformat == 4 and nb.cells[0].source == "1"


def test_copied_cells_are_noted_once_per_copy():
    nb = _notebook(_answer("softmax"), _answer("softmax"), _answer("other"), _answer("softmax"))
    assert duplicate_grade_ids(nb) == ["a copy of cell softmax was kept as an ordinary cell"] * 2
    assert duplicate_grade_ids(_notebook(_answer("a"), _answer("b"))) == []


def test_prepare_returns_nbformat_4_json_with_flags_and_notes():
    nb = _notebook(_answer("softmax", "torch.allclose = None"), _answer("softmax"))
    prepared = prepare(nbformat.writes(nb).encode(), "01.ipynb")
    assert nbformat.reads(prepared.notebook_json, as_version=4).cells[0].source == "torch.allclose = None"
    assert any(f.startswith("duplicate grade ids") for f in prepared.flags) and len(prepared.notes) == 1


def test_locate_takes_a_lone_misnamed_notebook_and_nothing_ambiguous(tmp_path):
    folder = tmp_path / "01_x"
    assert locate(folder, "01_x") == (None, None), "nothing handed in"
    folder.mkdir()
    assert locate(folder, "01_x") == (None, None), "an empty folder: nothing handed in"
    (folder / "notes.txt").write_text("my answers")
    path, note = locate(folder, "01_x")
    assert path is None and "no notebook (notes.txt)" in note and "rename" in note
    (folder / "my copy.ipynb").write_text("{}")
    path, note = locate(folder, "01_x")
    assert path.name == "my copy.ipynb" and "in place of 01_x.ipynb" in note
    (folder / "another.ipynb").write_text("{}")
    path, note = locate(folder, "01_x")
    assert path is None and "2 notebooks (another.ipynb, my copy.ipynb, notes.txt)" in note
    (folder / "01_x.ipynb").write_text("{}")
    assert locate(folder, "01_x") == (folder / "01_x.ipynb", None)


def _class(tmp_path):
    """submitted/ with ana's notebook of 01_x, as nbgrader's exchange leaves it."""
    top = tmp_path / "submitted"
    (top / "ana" / "01_x").mkdir(parents=True)
    (top / "ana" / "01_x" / "01_x.ipynb").write_text('{"ana": "her own work"}')
    return top


def test_a_link_to_a_classmates_notebook_is_not_taken_and_says_what_to_change(tmp_path):
    top = _class(tmp_path)
    (top / "bob" / "01_x").mkdir(parents=True)
    (top / "bob" / "01_x" / "01_x.ipynb").symlink_to(top / "ana" / "01_x" / "01_x.ipynb")
    path, note = locate(top / "bob" / "01_x", "01_x", top=top)
    assert path is None and "01_x.ipynb is a link" in note and "hand in the notebook file itself" in note
    (top / "bob" / "01_x" / "01_x.ipynb").unlink()
    (top / "bob" / "01_x" / "mine.ipynb").symlink_to(top / "ana" / "01_x" / "01_x.ipynb")
    path, note = locate(top / "bob" / "01_x", "01_x", top=top)
    assert path is None and "mine.ipynb is a link" in note, "a lone misnamed link is no notebook either"
    path, note = locate(top / "ana" / "01_x", "01_x", top=top)
    assert (path, note) == (top / "ana" / "01_x" / "01_x.ipynb", None), "the linked-to student is graded as usual"
    assert read_submission(path, top) == b'{"ana": "her own work"}'


@pytest.mark.parametrize("linked", ["student", "assignment"])
def test_a_folder_that_is_a_link_to_a_classmates_is_not_taken(tmp_path, linked):
    top = _class(tmp_path)
    if linked == "student":
        (top / "bob").symlink_to(top / "ana")
    else:
        (top / "bob").mkdir()
        (top / "bob" / "01_x").symlink_to(top / "ana" / "01_x")
    path, note = locate(top / "bob" / "01_x", "01_x", top=top)
    shown = "submitted/bob" if linked == "student" else "submitted/bob/01_x"
    assert path is None and note.startswith(f"{shown} is a link to another folder") and "your own folder" in note


def test_a_submission_is_read_without_following_a_link_made_after_it_was_found(tmp_path):
    """Between `locate` and the read, a folder or the file may become a link: the read refuses it."""
    top = _class(tmp_path)
    (top / "bob" / "01_x").mkdir(parents=True)
    found = top / "bob" / "01_x" / "01_x.ipynb"
    found.write_text('{"bob": "his own"}')
    assert locate(top / "bob" / "01_x", "01_x", top=top)[0] == found
    found.unlink()
    found.symlink_to(top / "ana" / "01_x" / "01_x.ipynb")
    with pytest.raises(BrokenSubmission, match="is a link"):
        read_submission(found, top)
    found.unlink()
    (top / "bob" / "01_x").rmdir()
    (top / "bob" / "01_x").symlink_to(top / "ana" / "01_x")
    with pytest.raises(BrokenSubmission, match="is a link"):
        read_submission(found, top)
    (top / "bob" / "01_x").unlink()
    (top / "bob" / "01_x").mkdir()
    os.mkfifo(found)   # opened as a reader, a FIFO would wait for a writer forever
    with pytest.raises(BrokenSubmission, match="not a regular file"):
        read_submission(found, top)
