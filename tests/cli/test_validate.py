"""`course validate` and the Validate button: the first thing reported is the cause, named by its exercise.

The unit tests give `diagnose` executed notebooks made by hand (an answer cell that raised,
tests that fail because of it, an ungraded cell that raised); the slow ones run real
notebooks through the command exactly as a student types it.
"""
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

from conftest import COURSE, run_course
from course_utils.qa.catalogue import catalogue_root
from course_utils import ipynb
from course_utils.cli.validate import TITLE_WIDTH, WIDTH, Exercises, Problem, describe, diagnose, failing, place_of
from course_utils.qa import submissions

STUB = 'raise NotImplementedError("Write your answer in this cell, then run the test cell below it.")'


def _cell(source, grade_id=None, *, solution=False, grade=False, points=0, error=None, traceback=()):
    cell = new_code_cell(source)
    if grade_id:
        cell.metadata["nbgrader"] = {"grade_id": grade_id, "solution": solution, "grade": grade,
                                     "locked": not solution, "points": points, "schema_version": 3}
    if error:
        ename, evalue = error
        cell.outputs = [new_output("error", ename=ename, evalue=evalue,
                                   traceback=[*traceback, f"\x1b[0;31m{ename}\x1b[0m: {evalue}"])]
    return cell


def _notebook(*cells):
    return new_notebook(cells=list(cells))


def _failed(nb, *grade_ids):
    """(index, error) of the named test cells, as CourseValidator passes them."""
    found = []
    for i, cell in enumerate(nb.cells):
        if ipynb.nbgrader_meta(cell).get("grade_id") in grade_ids:
            out = cell.outputs[0]
            found.append((i, f"{out.ename}: {out.evalue}"))
    return found


def _flat(text: str) -> str:
    """The text with its wrapping undone (titles and details are wrapped to fit the dialog)."""
    return " ".join(text.split())


def test_an_answer_cell_error_comes_first_with_its_exercise_and_line():
    nb = _notebook(
        _cell("import torch", "setup"),
        _cell("def split_heads(x, h):\n    return (x", "split_heads", solution=True,
              error=("SyntaxError", "incomplete input"), traceback=["  Cell In[3], line 2", "    return (x"]),
        _cell("assert split_heads(x, 2).shape == (1,)", "test_split_heads", grade=True, points=1,
              error=("NameError", "name 'split_heads' is not defined")),
        _cell("# Hidden tests: they run when your notebook is graded", "hidden_split_heads", grade=True, points=2),
        _cell("plot(split_heads(x, 2))", error=("NameError", "name 'split_heads' is not defined")),
    )
    problems = diagnose(nb, _failed(nb, "test_split_heads"))
    assert [p.kind for p in problems] == ["answer", "test", "warning"]
    first = problems[0]
    assert "split_heads" in first.title and "SyntaxError" in first.title and "line 2" in first.title
    assert "incomplete input" in first.detail
    test = problems[1]
    assert "split_heads" in test.title and "test_split_heads" not in test.title  # a grade id students never see
    assert "3 points: 1 visible + 2 hidden" in test.title and "fix that first" in test.title
    assert "not defined" in problems[2].title or "because of split_heads" in problems[2].title


def test_a_failing_test_is_named_by_the_exercise_above_it_not_by_its_first_line():
    nb = _notebook(
        _cell("def make_causal_mask(size):\n    return torch.ones(size, size).bool()", "make_causal_mask",
              solution=True),
        _cell("def _flat_bools(t):\n    return t.flatten().tolist()\ncheck(...)", "test_make_causal_mask",
              grade=True, points=1, error=("AssertionError", "row 0 may attend to key 1, a later position")),
        _cell("def make_decoder_mask(tokens, pad_id):\n    return tokens", "make_decoder_mask", solution=True),
        _cell("def _flat_bools(t):\n    pass", "test_make_decoder_mask", grade=True, points=1),
    )
    problems = diagnose(nb, _failed(nb, "test_make_causal_mask"))
    assert len(problems) == 1
    assert "make_causal_mask" in problems[0].title and "_flat_bools" not in problems[0].title
    assert "row 0 may attend" in problems[0].detail
    assert failing({"failed": [p.as_result() for p in problems]})


def test_an_unanswered_exercise_is_called_unanswered():
    nb = _notebook(
        _cell(f"def softmax(x, dim=-1):\n    {STUB}", "softmax", solution=True),
        _cell("softmax(x)", "test_softmax", grade=True, points=1,
              error=("NotImplementedError", "Write your answer in this cell")),
    )
    (problem,) = diagnose(nb, _failed(nb, "test_softmax"))
    assert "You have not answered softmax yet" in problem.title


def test_an_error_in_an_ungraded_cell_alone_is_a_warning_not_a_failure():
    nb = _notebook(
        _cell("def f(x):\n    return x", "f", solution=True),
        _cell("assert f(1) == 1", "test_f", grade=True, points=1),
        _cell("1 / 0", error=("ZeroDivisionError", "division by zero"), traceback=["Cell In[4], line 1"]),
    )
    problems = diagnose(nb, [])
    assert [p.kind for p in problems] == ["warning"]
    assert "not graded" in problems[0].title and "will not run cleanly" in problems[0].title
    results = {"failed": [p.as_result() for p in problems]}
    assert not failing(results)
    assert describe(results)[0].startswith("Success!")


def test_points_split_into_visible_and_hidden_as_the_student_copy_shows_them():
    nb = ipynb.read(COURSE.release("03_multi_head_attention"))
    exercises = Exercises(nb)
    assert set(exercises.answers) == {"split_heads", "merge_heads", "MultiHeadAttention"}
    for exercise in exercises.answers:
        assert exercises.visible[exercise] >= 1 and exercises.hidden[exercise] >= 1, exercise


def test_the_result_keeps_nbgraders_shape_for_its_validate_dialog():
    nb = _notebook(_cell("def f(x):\n    return x <", "f", solution=True, error=("SyntaxError", "invalid <syntax>")))
    (result,) = [p.as_result() for p in diagnose(nb, [])]
    assert set(result) >= {"source", "error", "raw_error"}
    assert "&lt;syntax&gt;" in result["error"], "the dialog renders `error` as HTML: it must be escaped"


def test_validate_a_missing_file():
    result = run_course("validate", "notebooks/nope.ipynb")
    assert result.returncode == 2 and "No notebook at" in result.stderr


@pytest.mark.slow
def test_a_student_loop_on_notebook_03_syntax_error_then_fixed(tmp_path):
    """The README's command on notebook 03: blank, then a SyntaxError in split_heads, then right."""
    aid = "03_multi_head_attention"
    release, solution = ipynb.read(COURSE.release(aid)), ipynb.read(COURSE.solution(aid))
    result = run_course("validate", COURSE.release(aid).relative_to(COURSE.root))
    assert result.returncode == 1 and "You have not answered split_heads yet" in _flat(result.stdout)

    answered = submissions.perfect(release, solution)
    for cell in answered.cells:
        if ipynb.nbgrader_meta(cell).get("grade_id") == "split_heads":
            cell.source = cell.source.replace("return ", "return (", 1)
    broken = ipynb.write(answered, tmp_path / "broken" / f"{aid}.ipynb")
    result = run_course("validate", broken)
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    flat = _flat(result.stdout)
    assert flat.index("split_heads raised SyntaxError at line") < flat.index("A test of"), out  # the cause, first
    assert "IPKernelApp" not in out and "WARNING" not in out, "no kernel warning reaches the student"

    done = ipynb.write(submissions.perfect(release, solution), tmp_path / "done" / f"{aid}.ipynb")
    result = run_course("validate", done)
    assert result.returncode == 0 and "Success" in result.stdout, result.stdout + result.stderr
    assert nbformat.validate(ipynb.read(done)) is None


def test_a_long_hint_is_wrapped_whole_and_the_dialog_and_command_line_say_the_same():
    hint = "AssertionError: " + " ".join(["the variance (dividing by d) of each token's output is wrong"] * 4)
    result = Problem("test", "A test of LayerNorm (4 points: 1 visible + 3 hidden) fails " * 3, hint).as_result()
    assert all(len(line) <= TITLE_WIDTH for line in result["source"].splitlines())
    assert all(len(line) <= WIDTH for line in result["raw_error"].splitlines())
    assert _flat(result["raw_error"]) == _flat(hint)  # nothing cut off
    assert "pre-wrap" in result["error"] and _flat(result["raw_error"]) in _flat(result["error"].replace("&#x27;", "'"))
    printed = _flat("\n".join(describe({"failed": [result]})))
    assert _flat(result["source"]) in printed and _flat(result["raw_error"]) in printed


def test_cells_are_named_by_section_and_first_line_never_by_number():
    nb = _notebook(
        _cell("import torch", "setup"),
        _cell("def split_heads(x, h):\n    return (x", "split_heads", solution=True),
        _cell("x = torch.ones(3)\nplot(split_heads(x, 2))", error=("ValueError", "bad")),
    )
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("Some text.\n\n## 2. Splitting heads\n\nMore text."))
    assert place_of(nb, 3) == "in section '2. Splitting heads', the cell that starts `x = torch.ones(3)`"
    warning = diagnose(nb, [])[-1]
    assert "2. Splitting heads" in warning.title and "cell 4" not in warning.title


@pytest.mark.slow
def test_a_failure_caused_by_an_earlier_exercise_is_traced_to_it(tmp_path):
    """A wrong LayerNorm used by a right AddAndNorm: AddAndNorm's test says "fix LayerNorm first", not its own hint."""
    aid = "06_layer_norm_residual_ffn"
    wrong_layer_norm = (catalogue_root(COURSE) / aid / "LayerNorm" / "wrong_unbiased_var.py").read_text()
    add_and_norm = ("class AddAndNorm(nn.Module):\n    def __init__(self, d_model, dropout=0.1):\n"
                    "        super().__init__()\n        self.norm = LayerNorm(d_model)\n"
                    "        self.dropout = nn.Dropout(dropout)\n\n    def forward(self, x, sublayer):\n"
                    "        return self.norm(x + self.dropout(sublayer(x)))\n")
    nb = submissions.with_answers(ipynb.read(COURSE.release(aid)), ipynb.read(COURSE.solution(aid)),
                                  {"LayerNorm": wrong_layer_norm, "AddAndNorm": add_and_norm})
    result = run_course("validate", ipynb.write(nb, tmp_path / aid / f"{aid}.ipynb"))
    flat = _flat(result.stdout)
    assert result.returncode == 1, flat
    add_and_norm_part = flat[flat.index("A test of AddAndNorm"):]
    assert "AddAndNorm uses LayerNorm, whose test fails above: fix LayerNorm first" in add_and_norm_part
    assert "pre-norm" not in add_and_norm_part  # AddAndNorm's own hint would point at the wrong code
    assert "biased variance" in flat[:flat.index("A test of AddAndNorm")]  # LayerNorm's own hint stays


@pytest.mark.slow
def test_an_exception_in_the_students_code_names_their_line_not_torch(tmp_path):
    aid = "01_queries_keys_values"
    wrong = "def dot_product_scores(query, keys):\n    scores = query @ keys.T\n    return scores\n"
    nb = submissions.with_answers(ipynb.read(COURSE.release(aid)), ipynb.read(COURSE.solution(aid)),
                                  {"dot_product_scores": wrong})
    result = run_course("validate", ipynb.write(nb, tmp_path / aid / f"{aid}.ipynb"))
    flat = _flat(result.stdout)
    part = flat[flat.index("A test of dot_product_scores"):flat.index("A test of soft_lookup")]
    assert "RuntimeError" in part and "`scores = query @ keys.T`" in part and "line 2" in part, part
    assert "Print the shapes" in part or "reverses every dim" in part, part  # a hint follows the student's line
    assert "torch/" not in part and "checks.py" not in part


def test_an_ungraded_cell_that_fails_through_an_exercise_whose_test_fails_names_that_exercise():
    nb = _notebook(
        _cell("class LayerNorm:\n    def forward(self, x):\n        return x.foo", "LayerNorm", solution=True),
        _cell("check(LayerNorm)", "test_LayerNorm", grade=True, points=1,
              error=("AssertionError", "the normalised rows must have mean 0")),
        _cell("y = model(x)", error=("AttributeError", "'Tensor' object has no attribute 'foo'"),
              traceback=["Cell In[6], line 1", "Cell In[3], line 3, in LayerNorm.forward(self, x)"]),
        _cell("norm = LayerNorm()\nprint(norm.forward(1) + 1)", error=("TypeError", "unsupported operand"),
              traceback=["Cell In[7], line 2"]),
        _cell("print(1 / 0)", error=("ZeroDivisionError", "division by zero"), traceback=["Cell In[8], line 1"]),
    )
    warnings = [p for p in diagnose(nb, _failed(nb, "test_LayerNorm")) if p.kind == "warning"]
    assert len(warnings) == 3
    through, uses, alone = (_flat(w.title) for w in warnings)
    assert "came from your LayerNorm, whose test fails above: fix LayerNorm first" in through
    assert "uses LayerNorm, whose test fails above" in uses
    assert "LayerNorm" not in alone and "will not run cleanly" in alone
