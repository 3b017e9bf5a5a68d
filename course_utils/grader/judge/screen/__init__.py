"""The source screen: what a student's code may run, read from the notebook before it runs.

For instructors, whose grades must hold against a student who reads the tests' source and the
grader's, and for grading jobs (`engine/jobs.py`), which screen every submission and hold a grade
with a finding for a person to look at. Whatever a notebook does at run time, it does through the
code the student handed in, and that code cannot be rewritten after the fact. Every cell the student
wrote (answer cells, cells they added, provided cells they edited) is read as IPython runs it, and
held against an allowlist of what the exercises need, not a list of what they must not do (no such
list within torch, numpy and the standard library could ever be complete): calls of listed callables
(torch's tensor and `nn` API, `math`, builtins that are plain computation, the notebook's and the
student's own names), attribute writes only into `self` and what the student made, no module (nor
class the student did not write) handed around as a value, no path from a string to code. What the
code reaches is judged by what it is, not by the name it is written with: `checks.os`, `f(torch.Tensor)`
into `def f(T): T.cpu = ...`, `trusted.sdpa` in an attention exercise are all found. Anything off the
allowlist is a finding, with its cell and line (docs/grading-security.md has the table).

A finding is not a verdict: the submission is graded all the same, and held for the instructor to
look at (`gradebook.Recorder`). Honest answers written in unusual ways (helper classes, threads,
`torch.compile`, plots, much printing) raise none: tests/grader/judge/test_screen_honest.py and the
catalogue's right answers prove it. The modules: `parsing` (cells as Python, one parse at a time),
`magics`, `context` (the assignment's side), `scopes` and `values` (what each expression may be),
`allowlist` with its data (`allowed_torch`, `allowed_python`, `allowed_methods`), `literals` (the
strings attributes are named with), `definitions` and `rules` (the findings), `shortcuts`.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from course_utils.grader.judge.screen.context import Context, Finding, context, student_cells
from course_utils.grader.judge.screen.magics import Magic, is_magic, magic
from course_utils.grader.judge.screen.parsing import bound_names, digest, imported_paths, parse
from course_utils.grader.judge.screen.rules import CellRules
from course_utils.grader.judge.screen.shortcuts import binds, forbidden, reached_definitions
from course_utils.grader.judge.screen.values import Analysis

if TYPE_CHECKING:
    from nbformat import NotebookNode

__all__ = ["Context", "Finding", "bound_names", "context", "digest", "imported_paths", "screen", "student_cells"]


@dataclass
class _Cell:
    label: str
    tree: ast.Module
    exercise: str = ""                                                    # the graded exercise it answers
    pieces: list[tuple[ast.Module, int]] = field(default_factory=list)    # its code, and its magics', lines above
    magics: dict[ast.AST, Magic] = field(default_factory=dict)


def screen(nb: NotebookNode, ctx: Context) -> list[Finding]:
    """Every finding in the cells the student wrote, in notebook order, each (cell, line, what) once."""
    cells = []
    for label, source, exercise in student_cells(nb, ctx):
        tree = parse(source)
        if tree is None:  # it fails when it runs: nothing to screen
            continue
        if not exercise:  # an exercise defined outside its answer cell is still that exercise's answer
            exercise = next((n.name for n in tree.body if isinstance(
                n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name in ctx.exercises), "")
        cells.append(_with_magics(_Cell(label, tree, exercise)))
    analysis = Analysis([tree for cell in cells for tree, _ in cell.pieces], ctx)
    findings: list[Finding] = []
    for cell in cells:
        shortcuts = forbidden(ctx.assignment, cell.exercise) if cell.exercise else frozenset()
        for tree, offset in cell.pieces:
            CellRules(analysis, ctx, cell.label, offset, findings, cell.magics, shortcuts).visit(tree)
        if cell.exercise:  # a helper of the student's, in another cell, that this answer calls
            others = [(other, other.tree) for other in cells if other is not cell]
            for other, definition in reached_definitions(cell.tree, others):
                helper = (cell.exercise, ", ".join(binds(definition)))
                CellRules(analysis, ctx, other.label, 0, findings, other.magics, shortcuts, helper).visit(definition)
    return list(dict.fromkeys(findings))


def _with_magics(cell: _Cell) -> _Cell:
    """The cell with the code its magics run (%timeit's statement, a %%time cell's body), found at any depth."""
    todo = [(cell.tree, 0)]
    while todo:
        tree, offset = todo.pop(0)
        cell.pieces.append((tree, offset))
        for node in ast.walk(tree):
            if is_magic(node):
                found = cell.magics[node] = magic(node)  # type: ignore[arg-type]
                todo += [(inner, offset + lines) for inner, lines in found.code]
    return cell
