"""What the screen knows of an assignment besides the submission: its release, its locked cells, its exercises.

For grading jobs (`engine/jobs.py` builds one `Context` per assignment, from the released notebook
and the gradebook, and screens every submission of it with that) and for the screen's analysis,
which needs to know what the notebook's own cells bind (torch, `checks`, `trusted`, the provided
classes, the teaching cells' variables), which names only the test cells bind (a student's function
must not read them), which builtins the tests use (a student must not rebind them) and which cells
are the course's rather than the student's. A `Finding` is the screen's answer: a cell, a line, what
was found there.
"""
from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from course_utils.grader.judge.screen import allowlist
from course_utils.grader.judge.screen.parsing import bound_names, digest, imported_paths, module_imports, parse
from course_utils.grader.judge.screen.values import BUILTIN_NAMES
from course_utils.ipynb import nbgrader_meta

if TYPE_CHECKING:
    from nbformat import NotebookNode


@dataclass(frozen=True)
class Finding:
    """What the screen found in a student's cell, and where."""
    cell: str      # "softmax" (an answer cell's grade id), "cell 12" (any other cell, by its place)
    line: int
    what: str

    @property
    def flag(self) -> str:
        """The finding as the flag a grade row carries."""
        return f"source: {self.cell}, line {self.line}: {self.what}"


@dataclass
class Context:
    """What the screen knows of the notebook besides the submission (from the release and the gradebook)."""
    release_cells: frozenset[str] = frozenset()   # digests of the release's code cells: the course's, not the student's
    provided: frozenset[str] = frozenset()        # names the locked cells bind (provided code, imports, tests' defs)
    imports: dict[str, str] = field(default_factory=dict)  # names the notebook's cells import -> the dotted path
    modules: frozenset[str] = frozenset()         # of those, the names bound to a module itself (torch, F, checks)
    test_names: frozenset[str] = frozenset()      # names only the test cells bind (their variables and helpers)
    assignment: str = ""
    exercises: frozenset[str] = frozenset()       # the answer cells' grade ids: softmax, LayerNorm, ...
    notebook: dict[str, str] = field(default_factory=dict)  # other names its own cells bind: class, function, value
    attributes: frozenset[str] = frozenset()      # attribute and method names the notebook's own code defines
    test_callables: frozenset[str] = frozenset()  # builtins and the notebook's functions the tests read (isinstance)
    reaches: dict[str, frozenset[str]] = field(default_factory=dict)  # the notebook's functions and classes ->
    #                                               the dotted paths they reach, directly or through each other


def context(release: NotebookNode, locked: Iterable[tuple[str, bool]], assignment: str = "",
            exercises: Iterable[str] = ()) -> Context:
    """The screen's context from the release notebook, the gradebook's locked cells [(source, is a test)]
    and its answer cells' grade ids."""
    codes = [c for c in release.cells if c.cell_type == "code"]
    tests, own = [], []  # parsed test cells; parsed cells of the notebook's own code (provided, teaching, stubs)
    provided: set[str] = set()
    for source, is_test in locked:
        tree = parse(source)
        names, defined = bound_names(tree)
        provided |= defined if is_test else names  # a test's helpers too: a later cell may not replace them
        if tree is not None:
            (tests if is_test else own).append(tree)
    own += [t for c in codes if not nbgrader_meta(c).get("locked") and (t := parse(c.source)) is not None]
    answered = set().union(*(bound_names(parse(c.source))[0] for c in codes if nbgrader_meta(c).get("solution")))
    imports: dict[str, str] = {}
    modules: set[str] = set()
    notebook: dict[str, str] = {}
    for tree in own:
        found = imported_paths(tree)
        imports |= found
        modules |= module_imports(tree) | {n for n, p in found.items() if allowlist.kind(p) == allowlist.MODULE}
        names, _ = bound_names(tree)
        kinds = {n.name: allowlist.CLASS if isinstance(n, ast.ClassDef) else allowlist.FUNCTION for n in tree.body
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        notebook |= {name: kinds.get(name, allowlist.VALUE) for name in names - set(found)}
    bound_by_tests = set().union(*(bound_names(t)[0] for t in tests))
    return Context(frozenset(digest(c.source) for c in codes), frozenset(provided), imports, frozenset(modules),
                   frozenset(bound_by_tests - set(notebook) - set(imports)), assignment, frozenset(exercises),
                   notebook, frozenset().union(*(_attributes(t) for t in (*own, *tests))),
                   frozenset(_callables_read(tests, notebook, imports) - answered), _reaches(own, imports))


def student_cells(nb: NotebookNode, ctx: Context) -> Iterator[tuple[str, str, str]]:
    """(label, source, exercise) of every code cell that is not the course's: answer cells, cells the
    student added or changed. Told by content, never by metadata, which the student may edit too (a
    copy of a locked cell's metadata on a cell of their own makes it an ordinary cell that runs)."""
    for index, cell in enumerate(nb.cells, start=1):
        if cell.cell_type != "code" or digest(cell.source) in ctx.release_cells:
            continue
        meta = nbgrader_meta(cell)
        grade_id = str(meta.get("grade_id", ""))
        answers = grade_id if meta.get("solution") and grade_id in ctx.exercises else ""
        yield (grade_id if answers else f"cell {index}"), cell.source, answers


def _attributes(tree: ast.Module) -> set[str]:
    """Attribute names a cell's code sets or defines (methods, fields, self.x = ...)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load):
            found.add(node.attr)
        elif isinstance(node, ast.ClassDef):
            found |= {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            found |= {t.id for n in node.body if isinstance(n, (ast.Assign, ast.AnnAssign))
                      for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    return found


def _reaches(trees: list[ast.Module], imports: dict[str, str]) -> dict[str, frozenset[str]]:
    """What each function and class of the notebook's own cells reaches, read from its source: the dotted
    paths it names through imports (sacrebleu.corpus_bleu, trusted.sdpa as torch's), and what the other
    functions and classes it names reach. An answer that calls `sacre_scores` takes sacreBLEU's shortcut."""
    direct: dict[str, set[str]] = {}
    calls: dict[str, set[str]] = {}
    for tree in trees:
        names = imports | imported_paths(tree)
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                direct[node.name] = {allowlist.resolve(p) for p in _paths(node, names)}
                calls[node.name] = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
    reached = {name: set(paths) for name, paths in direct.items()}
    for _ in range(len(reached)):  # through each other, to any depth
        grown = False
        for name, named in calls.items():
            for other in named & reached.keys() - {name}:
                if not reached[other] <= reached[name]:
                    reached[name] |= reached[other]
                    grown = True
        if not grown:
            break
    return {name: frozenset(paths) for name, paths in reached.items() if paths}


def _paths(node: ast.AST, imports: dict[str, str]) -> set[str]:
    """The dotted paths a definition names through the imports: each attribute chain, whole."""
    found, inner = set(), set()
    for child in ast.walk(node):
        if isinstance(child, ast.Attribute) and child not in inner:
            parts, base = [], child
            while isinstance(base, ast.Attribute):
                inner.add(base)
                parts.append(base.attr)
                base = base.value
            if isinstance(base, ast.Name) and base.id in imports:
                found.add(".".join([imports[base.id], *reversed(parts)]))
        elif isinstance(child, ast.Name) and child.id in imports:
            found.add(imports[child.id])
    return found


def _callables_read(tests: list[ast.Module], notebook: dict[str, str], imports: dict[str, str]) -> set[str]:
    """What the test cells call by a name they do not bind: builtins (isinstance, len) and the notebook's own
    functions and classes (a reference of a teaching cell). A student's binding of one would be called instead."""
    read = {n.id for tree in tests for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    builtins = {n for n in read & BUILTIN_NAMES if n not in notebook and n not in imports}
    return builtins | {n for n in read if notebook.get(n) in (allowlist.FUNCTION, allowlist.CLASS)}
