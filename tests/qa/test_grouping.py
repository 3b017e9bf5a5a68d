"""Which catalogue entries may share a submission: the dependency analysis and the packing."""
import nbformat
import pytest

from conftest import COURSE, IDS
from course_utils import ipynb
from course_utils.qa import catalogue, grouping


def _nb(*cells):
    """A solution notebook from (kind, grade_id, source): kind 'answer', 'test' or 'code' (ungraded)."""
    nb = nbformat.v4.new_notebook()
    for kind, grade_id, source in cells:
        cell = nbformat.v4.new_code_cell(source)
        if kind == "answer":
            cell.metadata["nbgrader"] = {"grade_id": grade_id, "solution": True, "grade": False, "locked": False}
        elif kind == "test":
            cell.metadata["nbgrader"] = {"grade_id": grade_id, "solution": False, "grade": True, "points": 1,
                                         "locked": True}
        nb.cells.append(cell)
    return nb


BASE = [
    ("code", None, "import torch\nfrom course_utils.notebook import checks"),
    ("answer", "a", "def a(x):\n    return x + 1"),
    ("test", "test_a", 'checks.testing("a")\nassert a(1) == 2, "a adds one"'),
    ("answer", "b", "def b(x):\n    return 2 * a(x)"),
    ("test", "test_b", 'checks.testing("b")\nassert b(1) == 4, "b doubles a"'),
    ("answer", "c", "class c:\n    alpha = 3"),
    ("test", "test_c", 'checks.testing("c")\nassert c.alpha == 3, "c has alpha"'),
]


def test_an_exercise_that_calls_another_depends_on_it():
    nb = grouping.analyse(_nb(*BASE))
    assert grouping.depends(nb, "b", "a") and not grouping.depends(nb, "a", "b")
    assert not grouping.compatible(nb, "a", "b"), "a dependent pair never shares a submission"
    assert grouping.compatible(nb, "a", "c") and grouping.compatible(nb, "b", "c")
    assert nb.reached_cells("a") == {"test_a", "test_b"}
    assert nb.reached_cells("c") == {"test_c"}


def test_a_name_counts_as_an_identifier_only():
    nb = grouping.analyse(_nb(*BASE, ("test", "hidden_c", 'checks.testing("c")\nclass T:\n    a = 1\n'
                                                         'alpha_a = c.alpha\nassert T.a + alpha_a, "attributes"')))
    assert grouping.compatible(nb, "a", "c"), "`c.alpha`, `T.a` and `alpha_a` do not read a"


def test_a_test_reaching_an_exercise_through_a_provided_helper_depends_on_it():
    nb = grouping.analyse(_nb(*BASE[:3], ("code", None, "def helper():\n    return a(0)"), *BASE[3:],
                              ("test", "hidden_c", 'checks.testing("c")\nassert helper() == 1, "helper"')))
    assert grouping.depends(nb, "c", "a") and not grouping.compatible(nb, "a", "c")


def test_independent_exercises_whose_test_cells_meet_elsewhere_stay_apart():
    # d uses a and c: a wrong a and a wrong c in one submission would both fail d's test,
    # and nothing says how many of its points each would lose alone.
    nb = grouping.analyse(_nb(*BASE, ("answer", "d", "def d():\n    return a(c.alpha)"),
                              ("test", "test_d", 'checks.testing("d")\nassert d() == 4, "d"')))
    assert not grouping.depends(nb, "a", "c") and not grouping.depends(nb, "c", "a")
    assert not grouping.compatible(nb, "a", "c")


def test_a_name_a_cell_binds_before_reading_is_its_own():
    cells = [*BASE, ("code", None, "x = a(1)"), ("test", "hidden_c", 'checks.testing("c")\nx = c.alpha\n'
                                                                    'for y in range(2):\n    x += y\nassert x, "c"')]
    assert grouping.compatible(grouping.analyse(_nb(*cells)), "a", "c")
    cells[-1] = ("test", "hidden_c", 'checks.testing("c")\nassert x == 2 and c.alpha, "reads the x of a"')
    assert not grouping.compatible(grouping.analyse(_nb(*cells)), "a", "c")


def test_an_entry_seen_by_its_exercise_from_its_own_source():
    # The solution of c reads nothing, but one catalogue entry of c calls a: they must stay apart.
    nb = grouping.analyse(_nb(*BASE), {"c": ["class c:\n    alpha = a(2)"]})
    assert grouping.depends(nb, "c", "a") and not grouping.compatible(nb, "a", "c")


@pytest.mark.parametrize("source, why", [
    ('"""doc"""\ndef a(x):\n    return x', None),
    ('def a(x):\n    return _h(x)\ndef _h(x):\n    return x\nimport math', None),
    ("def a(x):\n    return x\nprint(a(1))", "side effect"),
    ("def a(x):\n    torch.manual_seed(1)\n    return x", "calls manual_seed"),
    ("def a(x):\n    global _n\n    _n = x\n    return x", "declares _n global"),
    ("def a(x):\n    torch.softmax = None\n    return x", "changes torch, a module-level object"),
    ("class a:\n    def __init__(self, m):\n        setattr(self, 'w', m)\n        m.eval()", None),
    ("def a(x):\n    return x\ndef helper(x):\n    return x", "'helper', which is not one of a's names"),
    ("from torch import checks\ndef a(x):\n    return x", "import binds 'checks'"),
    ("_w = torch.ones(3)\ndef a(x):\n    return x", "calls code"),
    ("@functools.lru_cache()\ndef a(x):\n    return x", "decorator"),
    ("def a(x) return", None),    # a syntax error binds nothing: only a's cells can notice
])
def test_entries_that_could_change_other_cells_are_graded_alone(source, why):
    reason = grouping.solo_reason(grouping.analyse(_nb(*BASE)), "a", source)
    assert (reason is None) if why is None else (why in reason), reason


def test_packing_keeps_dependent_exercises_and_shared_helpers_apart(tmp_path):
    nb = grouping.analyse(_nb(*BASE))
    items = []
    for exercise, name, source in [("a", "1", "def a(x):\n    return x"), ("a", "2", "def a(x):\n    return -x"),
                                   ("b", "1", "def b(x):\n    return a(x)"),
                                   ("c", "1", "class c:\n    alpha = 2\ndef _h():\n    pass"),
                                   ("c", "2", "class c:\n    alpha = 4")]:
        path = tmp_path / f"{exercise}_{name}.py"
        path.write_text(source)
        items.append((exercise, f"{exercise}{name}", path))
    groups = [[key for _, key, _ in g] for g in grouping.pack(items, nb)]
    assert groups == [["a1", "c1"], ["a2", "c2"], ["b1"]]
    for group in groups:
        assert not {"a1", "b1"} <= set(group) and not {"a2", "b1"} <= set(group)


@pytest.mark.parametrize("aid", IDS)
def test_catalogue_groups_hold_pairwise_independent_exercises(aid):
    entries = catalogue.load(COURSE, aid)
    groups, nb = catalogue.wrong_groups(COURSE, aid, entries)
    assert sorted(e.student_id for g in groups for e in g) == sorted(e.student_id for e in entries
                                                                      if e.kind == "wrong")
    for group in groups:
        for i, one in enumerate(group):
            for other in group[i + 1:]:
                assert one.grade_id != other.grade_id
                assert not grouping.depends(nb, one.grade_id, other.grade_id)
                assert not grouping.depends(nb, other.grade_id, one.grade_id)
                assert not nb.reached_cells(one.grade_id) & nb.reached_cells(other.grade_id)


def test_the_course_dependencies_the_curriculum_states():
    nb = grouping.analyse(ipynb.read(COURSE.solution("01_queries_keys_values")))
    assert grouping.depends(nb, "soft_lookup", "softmax")
    assert grouping.depends(nb, "soft_lookup", "dot_product_scores")
    assert grouping.compatible(nb, "softmax", "QKVProjection")
    nb = grouping.analyse(ipynb.read(COURSE.solution("04_masking")))
    assert grouping.depends(nb, "make_decoder_mask", "make_padding_mask")
    assert not grouping.compatible(nb, "make_padding_mask", "make_causal_mask"), "both reach make_decoder_mask's tests"


def test_a_later_cell_reading_an_object_an_exercise_was_given_depends_on_it():
    # `a(model)` may change model (`model.eval()`), and test_c reads the same object afterwards.
    cells = [*BASE, ("code", None, "model = torch.nn.Linear(2, 2)"), ("code", None, "a(model)"),
             ("test", "hidden_c", 'checks.testing("c")\nassert model.training and c.alpha, "c"')]
    assert not grouping.compatible(grouping.analyse(_nb(*cells)), "a", "c")
    cells[-3:-1] = [("code", None, "seed = 0"), ("code", None, "a(seed)")]   # a literal cannot be changed
    cells[-1] = ("test", "hidden_c", 'checks.testing("c")\nassert seed == 0 and c.alpha, "c"')
    assert grouping.compatible(grouping.analyse(_nb(*cells)), "a", "c")


def _record(cells, status="graded", flags=()):
    from course_utils.grader.engine.records import GradeRecord

    return GradeRecord("s", "01_x", status, sum(got for got, _ in cells.values()),
                       sum(most for _, most in cells.values()), cells=cells, flags=list(flags))


def test_each_member_of_a_group_is_scored_on_the_cells_its_exercise_reaches(tmp_path):
    nb = grouping.analyse(_nb(*BASE))
    members = [catalogue.Entry("01_x", "a", "wrong", "x", tmp_path / "a.py"),
               catalogue.Entry("01_x", "c", "wrong", "y", tmp_path / "c.py")]
    cells = {"test_a": (0, 1), "test_b": (0, 1), "test_c": (1, 1)}
    shares = catalogue._shares(_record(cells), True, members, nb)
    a, c = shares[members[0].student_id], shares[members[1].student_id]
    assert (a.score, a.detail) == (1, "failed: test_a, test_b")   # 3 points, a alone loses test_a and test_b
    assert (c.score, c.detail) == (3, "all tests passed")         # c not caught: run() grades it again alone
    for abnormal in (_shares_of(nb, members, cells, perfect_fair=False),
                     _shares_of(nb, members, cells, status="timeout"),
                     _shares_of(nb, members, cells, flags=("tampering: torch.allclose replaced",))):
        assert set(abnormal.values()) == {None}, "a run that was not normal proves nothing"


def _shares_of(nb, members, cells, perfect_fair=True, **record):
    return catalogue._shares(_record(cells, **record), perfect_fair, members, nb)


def test_a_failing_cell_no_member_reaches_sends_the_whole_group_alone(tmp_path):
    nb = grouping.analyse(_nb(*BASE, ("answer", "d", "def d():\n    return 1"),
                              ("test", "test_d", 'checks.testing("d")\nassert d() == 1, "d"')))
    members = [catalogue.Entry("01_x", "a", "wrong", "x", tmp_path / "a.py"),
               catalogue.Entry("01_x", "c", "wrong", "y", tmp_path / "c.py")]
    cells = {"test_a": (0, 1), "test_b": (1, 1), "test_c": (0, 1), "test_d": (0, 1)}
    assert set(_shares_of(nb, members, cells).values()) == {None}
