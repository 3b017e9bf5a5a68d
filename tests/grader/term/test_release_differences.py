"""Why a committed release folder differs from a fresh one."""
import json

from course_utils.grader.term.release import differences


def _notebook(text):
    return json.dumps({"cells": [{"source": text}]}, indent=1)


def test_differences_name_missing_extra_and_changed_files(tmp_path):
    fresh, committed = tmp_path / "fresh", tmp_path / "committed"
    assert differences(fresh, committed) == [f"{committed} does not exist"]
    for folder in (fresh, committed):
        folder.mkdir()
        (folder / "same.ipynb").write_text(_notebook("a"))
    (committed / "same.ipynb").write_text(json.dumps(json.loads(_notebook("a"))))   # other whitespace: same notebook
    (fresh / "changed.ipynb").write_text(_notebook("new"))
    (committed / "changed.ipynb").write_text(_notebook("old"))
    (fresh / "missing.txt").write_text("x")
    (committed / "extra.txt").write_text("x")
    (committed / ".ipynb_checkpoints").mkdir()
    (committed / ".ipynb_checkpoints" / "same-checkpoint.ipynb").write_text("{}")
    assert differences(fresh, committed) == ["missing.txt is missing", "extra.txt is not in the solutions",
                                             "changed.ipynb differs from what solutions/ gives"]
