"""The progress summary at the end of every notebook: exercises, points, and where each stands."""
import json

import pytest
from nbformat.v4 import new_code_cell, new_notebook

from conftest import COURSE, IDS
from course_utils import ipynb
from course_utils.notebook import progress


def _graded(source, grade_id, *, solution=False, points=0):
    cell = new_code_cell(source)
    cell.metadata["nbgrader"] = {"grade_id": grade_id, "solution": solution, "grade": not solution,
                                 "locked": not solution, "points": points, "schema_version": 3}
    return cell


@pytest.fixture
def notebook(tmp_path):
    nb = new_notebook(cells=[
        _graded("def double(x):\n    return 2 * x", "double", solution=True),
        _graded("assert double(2) == 4, 'double must multiply by two'", "test_double", points=1),
        _graded("# Hidden tests: they run when your notebook is graded", "hidden_double", points=2),
        _graded("def half(x):\n    raise NotImplementedError('Write your answer')", "half", solution=True),
        _graded("assert half(4) == 2", "test_half", points=1),
        _graded("def triple(x):\n    return 3 * x", "triple", solution=True),
        _graded("assert triple(1) == 3, 'triple must multiply by three'", "test_triple", points=1),
    ])
    path = tmp_path / "nb" / "nb.ipynb"
    path.parent.mkdir()
    path.write_text(json.dumps(nb))
    return path


def test_each_exercise_stands_as_its_visible_tests_say(notebook, monkeypatch, capsys):
    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)

    def half(x):
        raise NotImplementedError("Write your answer")

    namespace = {"double": lambda x: 2 * x, "half": half, "triple": lambda x: x + 3}
    rows = progress.standing(notebook, namespace)
    assert [(e, s.split(":")[0]) for e, _, s in rows] == [
        ("double", "visible tests pass"), ("half", "not answered yet"), ("triple", "visible tests fail")]
    assert rows[0][1] == "3 points: 1 visible + 2 hidden"
    assert "triple must multiply by three" in rows[2][2], "the failing test's own message"
    monkeypatch.chdir(notebook.parent)
    progress.summary(namespace={"double": lambda x: 2 * x})
    out = capsys.readouterr()
    assert "1 of 3 exercises pass" in out.out and "answer cell not run yet" in out.out and not out.err


def test_graded_runs_skip_the_summary(notebook, monkeypatch, capsys):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    progress.summary(notebook, {})
    assert "skip" in capsys.readouterr().out


@pytest.mark.parametrize("aid", IDS)
def test_every_notebook_ends_with_the_summary(aid):
    for path in (COURSE.solution(aid), COURSE.release(aid)):
        last = ipynb.read(path).cells[-1]
        assert last.cell_type == "code" and last.id == "progress" and "progress.summary()" in last.source
        assert not ipynb.nbgrader_meta(last), "the summary is not graded"
