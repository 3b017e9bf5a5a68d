"""Cells as Python, for the source screen: read the way IPython runs them, one parse at a time.

For the screen's other modules, which need every cell of a submission and of its release as an
`ast` tree. It exists for two reasons. IPython rewrites magics and shell escapes into calls before
Python sees a cell (`%timeit f(x)` runs as `get_ipython().run_line_magic('timeit', 'f(x)')`), so a
cell is read after that rewrite, as the kernel will run it. And CPython 3.11's `ast` is not
thread-safe: two threads that parse at once can fail with "SystemError: AST constructor recursion
depth mismatch" (python/cpython#106905), which once held an honest submission as "not screened".
A grading worker screens several submissions at once, so every parse here holds one process-wide lock.
"""
from __future__ import annotations

import ast
import hashlib
import symtable
import threading

# One parse at a time in this process, the verdict engine's (verdicts.cell) included
# (python/cpython#106905): the `ast` module's recursion counters are shared by every thread.
PARSE_LOCK = threading.Lock()


def parse(source: str) -> ast.Module | None:
    """A cell as Python, the way IPython runs it (magics and shell escapes become calls); None if
    it does not parse (it fails when it runs: nothing to screen)."""
    from IPython.core.inputtransformer2 import TransformerManager

    with PARSE_LOCK:
        try:
            return ast.parse(TransformerManager().transform_cell(source))
        except (SyntaxError, ValueError, IndexError):
            return None


def parse_python(source: str) -> ast.Module:
    """A module's source as Python (the course's own modules, read for what they define)."""
    with PARSE_LOCK:
        return ast.parse(source)


def digest(source: str) -> str:
    """A cell's source as the screen compares it: trailing spaces and blank edges do not count."""
    lines = [line.rstrip() for line in source.strip().splitlines()]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def bound_names(tree: ast.Module | None) -> tuple[set[str], set[str]]:
    """(every name a parsed cell binds at its top level, those bound by import, def or class)."""
    if tree is None:  # a cell that does not parse binds nothing
        return set(), set()
    with PARSE_LOCK:
        table = symtable.symtable(ast.unparse(tree), "<cell>", "exec")
    names = {s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported()}
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    imported = {s.get_name() for s in table.get_symbols() if s.is_imported()}
    return names, defined | imported


def imported_paths(tree: ast.AST) -> dict[str, str]:
    """{name: the dotted path its import binds} of a cell's imports (`import torch.nn as nn`: nn -> torch.nn)."""
    paths = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                paths[bound] = alias.name if alias.asname else bound
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    paths[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return paths


def module_imports(tree: ast.AST) -> set[str]:
    """The names a cell binds with `import X` (always a module), as opposed to `from X import Y`."""
    return {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
            for alias in node.names}
