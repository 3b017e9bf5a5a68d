"""Every test cell of the course can be judged in the grader (docs/authoring.md, "Where a test cell runs").

When a notebook is graded, each test cell runs in the grader's process in a namespace of its own:
the notebook's provided definitions, and what it reads of the kernel. Read statically here, for
every test cell of every solution notebook: it reads no name that only another test cell binds,
draws its inputs with `checks.generator`, and never patches a module or class (a patch in the
grader changes nothing in the kernel where the student's code runs: forbidden shortcuts are
`checks.forbidden`'s).
"""
import ast
import builtins

import pytest

from conftest import COURSE
from course_utils import ipynb
from course_utils.grader.judge.verdicts.cell import _definition, free_names, parse

IDS = [aid for aid in COURSE.ids() if aid != "00_welcome"]


def _bound(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


def _cells(aid):
    """(kind, grade id or cell id, parsed source) of each code cell, in order."""
    for cell in ipynb.read(COURSE.solution(aid)).cells:
        if cell.cell_type != "code":
            continue
        meta = ipynb.nbgrader_meta(cell)
        kind = ("test" if meta.get("grade") and not meta.get("solution") else "answer" if meta.get("solution")
                else "provided" if meta.get("locked") else "open")
        yield kind, meta.get("grade_id") or cell.get("id"), parse(cell.source)


@pytest.mark.parametrize("aid", IDS)
def test_each_test_cell_reads_only_the_notebook_and_its_provided_definitions(aid):
    defined, in_kernel, problems = set(), set(), []
    for kind, name, tree in _cells(aid):
        if kind == "test":
            own = _bound(tree)
            missing = sorted(free_names(tree) - own - defined - in_kernel - set(dir(builtins)))
            if missing:
                problems.append(f"{name} reads {', '.join(missing)}, which no provided or answer cell before it binds")
            continue
        in_kernel |= _bound(tree)
        if kind == "provided":
            defined |= {n for node in tree.body if _definition(node) for n in _bound(ast.Module([node], []))}
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("aid", IDS)
def test_test_cells_draw_with_checks_generator_and_patch_nothing(aid):
    problems = []
    for kind, name, tree in _cells(aid):
        if kind != "test":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "manual_seed" \
                    and isinstance(node.func.value, ast.Call) and ast.unparse(node.func.value.func).endswith("Generator"):
                problems.append(f"{name}, line {node.lineno}: torch.Generator().manual_seed(...): use checks.generator(...)")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
                problems.append(f"{name}, line {node.lineno}: {node.func.id}(...) in a test cell: forbid shortcuts with "
                                "checks.forbidden, change the student's objects through their own methods")
    assert not problems, "\n".join(problems)


def test_a_cell_is_read_as_python_or_else_as_ipython_reads_it():
    """Python is parsed as written (line numbers included); IPython's own syntax is turned into calls first."""
    plain = parse("\n\nx = 1\nprint(x)  # done?\n")
    assert [type(n) for n in plain.body] == [ast.Assign, ast.Expr] and plain.body[0].lineno == 3
    magic = parse("%time y = 2\nz = y")
    assert isinstance(magic.body[0], ast.Expr) and "run_line_magic" in ast.unparse(magic.body[0])
    assert isinstance(magic.body[-1], ast.Assign)
