"""Hidden tests leave the notebook's own names as they found them.

The solution notebooks run with their hidden tests (CI, the recorded runs the prose quotes); the
students' copies run without them. A hidden test that binds a name the notebook's own cells read
later changes the run after it for the first and not the second: notebook 11's hidden
`mask_tokens` tests looped over `seed`, so every recorded run of its later sections trained and
generated data with seed 22 while every student's ran with 0, and the numbers the text quoted
were no student's. This reads, in execution order, each code cell after a hidden test: a name the
hidden block binds, which the notebook's own cells defined before it, must be bound again before
any of the notebook's own cells reads it.
"""
import ast
import re

import nbformat
import pytest

from conftest import COURSE, IDS
from course_utils import ipynb

HIDDEN = re.compile(r"### BEGIN HIDDEN TESTS\n(.*?)### END HIDDEN TESTS", re.S)
NEW_SCOPE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp,
             ast.DictComp, ast.GeneratorExp)


def bound(tree: ast.AST) -> set[str]:
    """Names a block binds in the notebook's namespace (not inside functions, classes or comprehensions)."""
    names = set()

    def visit(node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            return
        if isinstance(node, NEW_SCOPE):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return names


def _reads(node: ast.AST, name: str) -> bool:
    """Whether evaluating `node` reads `name` from the namespace: loads outside new scopes, and loads of it as a
    global inside the functions it defines (which may run later, from here)."""
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        local = {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        return name not in local and any(_reads(child, name) for child in ast.iter_child_nodes(node))
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        params = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        local = params | bound(ast.Module(body=node.body if isinstance(node.body, list) else [], type_ignores=[]))
        outer = [*getattr(node, "decorator_list", []), *node.args.defaults, *node.args.kw_defaults]
        inner = node.body if isinstance(node.body, list) else [node.body]
        return any(_reads(n, name) for n in outer if n is not None) or (
            name not in local and any(_reads(n, name) for n in inner))
    if isinstance(node, ast.Name):
        return node.id == name and isinstance(node.ctx, ast.Load)
    return any(_reads(child, name) for child in ast.iter_child_nodes(node))


def first_touch(statements: list[ast.stmt], name: str) -> str | None:
    """"read" or "bound": what the statements, run in order, first do with `name` (None: nothing)."""
    for statement in statements:
        if isinstance(statement, (ast.For, ast.AsyncFor)):
            steps = [("read", statement.iter), ("bind", statement.target), ("body", statement.body),
                     ("body", statement.orelse)]
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            steps = [step for item in statement.items for step in
                     (("read", item.context_expr), ("bind", item.optional_vars))] + [("body", statement.body)]
        elif isinstance(statement, (ast.If, ast.While)):
            steps = [("read", statement.test), ("body", statement.body), ("body", statement.orelse)]
        elif isinstance(statement, ast.Try):
            steps = [("body", statement.body), *(("body", h.body) for h in statement.handlers),
                     ("body", statement.orelse), ("body", statement.finalbody)]
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            steps = [("read", statement.value), *(("bind", t) for t in targets)]
        elif isinstance(statement, ast.AugAssign):
            steps = [("read", statement.value), ("read", ast.Name(statement.target.id, ast.Load()))
                     if isinstance(statement.target, ast.Name) else ("read", statement.target), ("bind", statement.target)]
        else:
            steps = [("read", statement), ("bind", statement)]
        for kind, node in steps:
            if node is None or node == []:
                continue
            if kind == "body":
                found = first_touch(node, name)
                if found:
                    return found
            elif kind == "read" and _reads(node, name):
                return "read"
            elif kind == "bind" and name in bound(ast.Module(body=[node] if isinstance(node, ast.stmt) else
                                                             [ast.Expr(node)], type_ignores=[])):
                return "bound"
    return None


def leaks(nb) -> list[str]:
    def is_test(cell):
        meta = ipynb.nbgrader_meta(cell)
        return bool(meta.get("grade")) and not meta.get("solution")

    cells = [(cell.get("id"), cell.source, is_test(cell)) for cell in nb.cells if cell.cell_type == "code"]
    found, defined = [], set()
    for at, (cell_id, source, is_test) in enumerate(cells):
        if not is_test:
            defined |= bound(ast.parse(source))
            continue
        for block in HIDDEN.findall(source):
            for name in sorted(bound(ast.parse(block)) & defined):
                for later_id, later, later_test in cells[at + 1:]:
                    touch = None if later_test else first_touch(ast.parse(later).body, name)
                    if touch == "read":
                        found.append(f"hidden tests of {cell_id} bind `{name}`, which {later_id} then reads")
                    if touch:
                        break
    return found


def test_the_check_finds_a_leak_and_passes_a_rebinding():
    hidden = {"nbgrader": {"grade": True, "solution": False, "grade_id": "hidden_x", "points": 1}}
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("seed = 0", id="parameters"),
        nbformat.v4.new_code_cell("### BEGIN HIDDEN TESTS\nfor seed in (21, 22):\n    pass\n### END HIDDEN TESTS",
                                  id="hidden_x", metadata=hidden),
        nbformat.v4.new_code_cell("for i in range(3):\n    print(i)", id="loop"),
        nbformat.v4.new_code_cell("def train():\n    return seed\nmodel = train()", id="train")])
    assert leaks(nb) == ["hidden tests of hidden_x bind `seed`, which train then reads"]
    nb.cells[2].source = "for seed in range(3):\n    print(seed)"
    assert leaks(nb) == [], "a loop that binds it first reads its own value"


@pytest.mark.parametrize("aid", IDS)
def test_hidden_tests_leave_the_notebooks_names_as_they_found_them(aid):
    assert leaks(ipynb.read(COURSE.solution(aid))) == []
