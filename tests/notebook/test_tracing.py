"""Failures traced to their cause, in a real IPython shell (the same hooks a notebook's kernel gets)."""
from __future__ import annotations

import pytest
from IPython.core.interactiveshell import InteractiveShell

from course_utils.ipynb import strip_ansi
from course_utils.notebook import tracing


@pytest.fixture
def run(capsys):
    shell = InteractiveShell.instance()
    tracing.install(shell, grading=False)
    tracing._failed.clear()
    shell.run_cell("from course_utils.notebook import checks\nimport torch\nimport torch.nn as nn", store_history=True)

    def run_cell(source: str) -> tuple[bool, str]:
        capsys.readouterr()
        result = shell.run_cell(source, store_history=True)
        return result.success, strip_ansi(capsys.readouterr().out)

    yield run_cell
    tracing._failed.clear()


def test_a_test_that_fails_because_of_an_exercise_it_uses_says_so_instead_of_its_own_hint(run):
    run("broken = True\ndef inner(x):\n    return x if broken else x + 1")
    run("def _helper(x):\n    return inner(x)\ndef outer(x):\n    return _helper(x) * 2")
    ok, out = run('checks.testing("inner")\nchecks.expect(inner(1) == 2, "inner must add one")')
    assert not ok and "inner must add one" in out and tracing.failing("inner")
    ok, out = run('checks.testing("outer")\nchecks.expect(outer(1) == 4, "OUTER OWN HINT")')
    assert not ok and "outer uses inner, whose test fails above: fix inner first" in out
    assert "OUTER OWN HINT" not in out

    run("broken = False")
    ok, out = run('checks.testing("inner")\nchecks.expect(inner(1) == 2, "inner must add one")')
    assert ok and not tracing.failing("inner")
    run("def outer(x):\n    return inner(x) * 3")
    ok, out = run('checks.testing("outer")\nchecks.expect(outer(1) == 4, "OUTER OWN HINT")')
    assert not ok and "OUTER OWN HINT" in out and "fix inner first" not in out  # its own mistake now


def test_an_exercise_that_does_not_use_the_failing_one_keeps_its_own_hint(run):
    run("def inner(x):\n    return x")
    run("def outer(x):\n    return x + 5")
    run('checks.testing("inner")\nchecks.expect(False, "inner is wrong")')
    ok, out = run('checks.testing("outer")\nchecks.expect(outer(1) == 2, "OUTER OWN HINT")')
    assert not ok and "OUTER OWN HINT" in out and "fix inner first" not in out


def test_an_exception_in_the_students_code_names_their_line_and_hides_checks_and_torch(run):
    run("class Scores(nn.Module):\n    def forward(self, q, k):\n        s = q @ k.T\n        return s")
    ok, out = run('checks.testing("Scores")\nwith checks.quiet():\n'
                  '    out = Scores()(torch.ones(2, 2, 3), torch.ones(2, 4, 3))\nchecks.expect(True, "")')
    assert not ok
    assert "Testing Scores: RuntimeError" in out and "was raised in Scores.forward, line 3" in out
    assert "`s = q @ k.T`" in out and "Print the shapes" in out
    assert "module.py" not in out and "checks.py" not in out and "contextlib" not in out
    assert "At line 3 of the test cell" in out  # run by hand, the test's own line is shown


def test_a_placeholder_is_named_as_not_answered(run):
    run('def todo(x):\n    raise NotImplementedError("Write your answer in this cell")')
    ok, out = run('checks.testing("todo")\ntodo(1)')
    assert not ok and "todo is not answered yet: its answer cell still raises NotImplementedError" in out


def test_outside_test_cells_torch_call_machinery_is_hidden_but_the_students_frames_stay(run):
    run("class Boom(nn.Module):\n    def forward(self, x):\n        return x.view(7)")
    ok, out = run("Boom()(torch.ones(3))")
    assert not ok and "x.view(7)" in out and "RuntimeError" in out
    assert "_call_impl" not in out and "module.py" not in out


def test_a_graded_run_never_shows_the_test_cells_source(run):
    tracing.install(InteractiveShell.instance(), grading=True)
    try:
        ok, out = run('checks.testing("x")\nsecret = 41\nchecks.expect(secret == 42, "x is wrong")')
    finally:
        tracing.install(InteractiveShell.instance(), grading=False)
    assert not ok and "x is wrong" in out and "secret" not in out


def test_a_helper_of_an_earlier_test_is_never_named_as_the_students_code(run):
    run('checks.testing("a")\ndef _reference(x):\n    return x.view(7)  # SECRET')
    ok, out = run('checks.testing("b")\n_reference(torch.ones(3))')
    assert not ok and "SECRET" not in out and "was raised" not in out and "RuntimeError" in out


def test_checks_call_names_the_students_line(run):
    run("def scores(q, k):\n    return q @ k.T")
    ok, out = run('checks.testing("scores")\n'
                  'checks.call("scores(q, k)", scores, torch.ones(2, 2, 3), torch.ones(2, 4, 3), hint="mind the batch")')
    assert not ok and "scores(q, k) raised RuntimeError" in out and "in scores, line 2 of its cell: `return q @ k.T`" in out
