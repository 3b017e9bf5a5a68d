"""The source screen as a whole: whose cells it reads, how a finding is named, and the course's own code.

Every solution notebook and every right answer of the bug catalogue (alone, and together as the
catalogue hands them in) raises no finding; the catalogue's forbidden shortcuts are found. Honest
but unusual programs are in test_screen_honest.py, attacks in test_screen_attacks.py, the allowlist
against the installed packages in test_screen_allowlist.py. No kernel runs here: these are fast.
"""
import copy
import sys
import threading

import pytest

from conftest import COURSE, IDS
from course_utils import ipynb
from course_utils.grader.judge import screen
from course_utils.grader.judge.screen import parsing
from course_utils.qa.catalogue import load, right_groups
from course_utils.qa.submissions import perfect
from screening import SOFTMAX, context, findings, notebooks, submission

AID = "01_queries_keys_values"
IMPORTS_OS = "imports os (not a module the exercises use)"


def test_a_finding_names_its_cell_and_line():
    [found] = findings(AID, {"softmax": SOFTMAX}, added="x = 1\n\nimport os", at=5)
    assert found.flag == f"source: cell 6, line 3: {IMPORTS_OS}"
    [found] = findings(AID, {"softmax": SOFTMAX.replace("    return", "    import gc\n    return")})
    assert (found.cell, found.line) == ("softmax", 3)
    [found] = findings(AID, {"softmax": SOFTMAX}, added="%%time\nx = 1\nimport os", at=5)
    assert (found.cell, found.line) == ("cell 6", 3), "the line of the code a magic runs, in the cell"


def test_a_course_cell_is_not_the_students_but_an_edited_one_is():
    nb = submission(AID, {"softmax": SOFTMAX})
    teaching = next(c for c in nb.cells if c.cell_type == "code" and not ipynb.nbgrader_meta(c)
                    and "import" not in c.source)
    assert screen.screen(nb, context(AID)) == []
    teaching.source += "\nimport os"
    assert [f.what for f in screen.screen(nb, context(AID))] == [IMPORTS_OS]


def test_metadata_does_not_decide_whose_cell_it_is():
    """A student's cell wearing a locked cell's metadata (it runs: the real cell keeps the id) is screened;
    an answer whose metadata was taken off is still its exercise's answer."""
    nb = submission(AID, {"softmax": SOFTMAX}, added="import os", at=5)
    setup = next(c for c in nb.cells if ipynb.nbgrader_meta(c).get("grade_id") == "setup")
    nb.cells[5].metadata = copy.deepcopy(setup.metadata)
    assert nb.cells[5].source == "import os" and nb.cells.index(setup) < 5
    assert [f.what for f in screen.screen(nb, context(AID))] == [IMPORTS_OS]
    nb = submission(AID, {"softmax": "def softmax(x, dim=-1):\n    return x.softmax(dim)"})
    del ipynb.answer_cells(nb)["softmax"].metadata["nbgrader"]
    assert any("shortcut" in f.what for f in screen.screen(nb, context(AID)))


def test_code_that_does_not_parse_is_not_screened():
    assert findings(AID, {"softmax": "def softmax(x, dim=-1:\n    import os"}) == [], "it fails when it runs"


def test_a_name_is_what_every_cell_binds_it_to_whatever_the_order():
    """A name bound in a later cell counts where an earlier cell uses it: cells run in any order."""
    uses = "def f():\n    block.weight = None"
    assert findings(AID, {"softmax": SOFTMAX}, added=uses, at=5) == []  # block is unknown: a NameError, no more
    binds = "block = nn.Linear(2, 2)\nblock = checks"
    found = screen.screen(_with(submission(AID, {"softmax": SOFTMAX}, added=uses, at=5), binds), context(AID))
    assert any(f.cell == "cell 6" and "writes to block.weight" in f.what for f in found), [f.flag for f in found]


def test_a_chain_of_names_is_followed_to_its_end_or_held():
    """Names bound in the reverse of their order take a round each to settle; past the last round
    what is still changing is taken as what the screen cannot follow, never as the student's own."""
    def chain(n):
        return "\n".join(f"s{i} = s{i + 1}" for i in range(n)) + f"\ns{n} = session\ns0.fast = False"
    assert [f.what for f in findings(AID, {"softmax": SOFTMAX}, added=chain(10))] == [
        "writes to s0.fast (the notebook provides session)"]
    [found] = findings(AID, {"softmax": SOFTMAX}, added=chain(60))
    assert found.what.startswith("writes to s0.fast (the screen cannot follow what it belongs to")


def _with(nb, source):
    import nbformat

    nb.cells.insert(len(nb.cells) - 1, nbformat.v4.new_code_cell(source))
    return nb


@pytest.mark.parametrize("aid", IDS)
def test_solutions_and_the_catalogues_right_answers_are_not_found(aid):
    """As the catalogue hands them in (course_utils/qa/catalogue.py): each right answer in the perfect
    submission, alone and together with the other exercises' k-th right answers."""
    release, solution = notebooks(aid)
    assert screen.screen(perfect(copy.deepcopy(release), solution), context(aid)) == []
    entries = load(COURSE, aid)
    rights = [e for e in entries if e.kind == "right"]
    for entry in rights:
        found = findings(aid, {entry.grade_id: entry.path.read_text()})
        assert found == [], f"{entry.student_id}: {[f.flag for f in found]}"
    for student, group in right_groups(entries).items():
        found = findings(aid, {e.grade_id: e.path.read_text() for e in group})
        assert found == [], f"{student}: {[f.flag for f in found]}"
    assert aid in ("00_welcome",) or rights, "every graded notebook has right answers in the catalogue"


@pytest.mark.parametrize("aid", IDS)
def test_the_notebooks_own_cells_edited_by_a_student_raise_nothing(aid):
    """A teaching cell a student reruns with a change is screened as theirs: the course's own code passes."""
    release, solution = notebooks(aid)
    nb = perfect(copy.deepcopy(release), solution)
    for cell in nb.cells:
        if cell.cell_type == "code" and not ipynb.nbgrader_meta(cell).get("locked"):
            cell.source += "\n# changed"
    found = screen.screen(nb, context(aid))
    assert found == [], [f.flag for f in found]


@pytest.mark.parametrize("aid, grade_id, name", [
    ("01_queries_keys_values", "softmax", "calls_torch_softmax"),
    ("01_queries_keys_values", "soft_lookup", "calls_sdpa"),
    ("02_scaled_dot_product_attention", "scaled_dot_product_attention", "calls_torch_sdpa"),
    ("03_multi_head_attention", "MultiHeadAttention", "calls_torch_functional_mha"),
    ("06_layer_norm_residual_ffn", "LayerNorm", "calls_f_layer_norm"),
    ("06_layer_norm_residual_ffn", "LayerNorm", "subclasses_nn_layernorm"),
])
def test_the_catalogues_forbidden_shortcuts_are_found(aid, grade_id, name):
    [entry] = [e for e in load(COURSE, aid) if e.grade_id == grade_id and e.name == name]
    found = findings(aid, {grade_id: entry.path.read_text()})
    assert any("a shortcut this exercise may not take" in f.what and f.cell == grade_id for f in found), found


def test_attention_is_a_shortcut_everywhere_but_where_it_is_taught():
    sdpa = SOFTMAX + "\nprint(F.scaled_dot_product_attention)"
    assert any("scaled_dot_product_attention" in f.what for f in findings(AID, {"softmax": sdpa}))
    cached = next(e for e in load(COURSE, "09_efficient_attention") if e.kind == "right")
    assert findings("09_efficient_attention", {cached.grade_id: cached.path.read_text()}) == []


def test_the_context_knows_what_the_notebook_binds():
    ctx = context(AID)
    assert ctx.imports["F"] == "torch.nn.functional" and {"torch", "nn", "F", "checks", "trusted"} <= ctx.modules
    assert ctx.notebook["session"] == "value" and ctx.notebook["softmax"] == "function"
    assert "gen" in ctx.test_names and "x_before" in ctx.test_names and "torch" not in ctx.test_names
    assert {"isinstance", "getattr", "bool"} <= ctx.test_callables


def test_parsing_is_one_at_a_time():
    """CPython 3.11's ast is not thread-safe (python/cpython#106905): threads that parse while others make
    garbage (whose finalizers switch threads mid-parse) fail with "AST constructor recursion depth mismatch",
    which held an honest notebook as "not screened". The screen's parses take turns."""
    source = "\n".join(f"def f{i}(x):\n    return [[(x, {i}) for _ in range(2)] for _ in range(3)]" for i in range(100))
    errors, interval = [], sys.getswitchinterval()

    class Finalized:
        def __del__(self):
            pass

    def work():
        for _ in range(15):
            junk = [Finalized() for _ in range(200)]
            for a, b in zip(junk, junk[1:] + junk[:1]):
                a.next = b  # a cycle: collected, finalizers run, in the middle of another thread's parse
            del junk
            try:
                assert parsing.parse(source) is not None
            except SystemError as error:
                errors.append(error)

    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
