"""IPython's magics and shell escapes in a student's cell: which may run, and the code they run.

For the source screen. A magic is IPython's machinery, not the student's code: `%env` changes the
kernel's environment, `%run` and `%load` run files, `!cmd` starts a shell, `%config` evaluates what
it is given. Only the magics honest notebooks use pass: `%time`, `%timeit` and `%%capture`, whose
statement or cell is Python and is screened as the student's own code (at its own lines),
`%matplotlib inline`, `%config InlineBackend.<setting> = <a literal>` and `name?` (IPython's help on
a name, read as that name). Anything else is a finding.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from course_utils.grader.judge.screen.parsing import parse, parse_python

CODE_MAGICS = frozenset({"time", "timeit", "capture"})  # what they run is Python: screened as such
# %timeit's options before its statement; -s takes setup code, screened as well.
_TIMEIT_OPTION = re.compile(r"""\s*(?:-[nrp]\s*\S+|-[qotc]\b|-s\s*("[^"]*"|'[^']*'|\S+))""")
_CONFIG = re.compile(r"^\s*InlineBackend\.[A-Za-z_]\w*\s*=\s*(?P<value>.+)$")
_CAPTURE_ARGUMENTS = re.compile(r"^\s*((--no-(stderr|stdout|display)\s+)*)([A-Za-z_]\w*)?\s*$")


@dataclass
class Magic:
    """One magic or shell escape of a cell, as IPython's rewrite of it calls it."""
    call: ast.Call
    name: str                       # "timeit"; "!" for a shell command
    problem: str = ""               # why it holds the submission ("" when it may run)
    code: list[tuple[ast.Module, int]] = field(default_factory=list)  # the Python it runs, lines above it


def is_magic(node: ast.AST) -> bool:
    """Whether `node` is IPython's rewrite of a magic or a shell escape: get_ipython().run_line_magic(...)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Attribute) and func.attr in ("run_line_magic", "run_cell_magic", "system", "getoutput")
            and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "get_ipython" and not func.value.args)


def magic(node: ast.Call) -> Magic:
    """What the magic call `node` is, whether it may run, and the code it runs."""
    kind = node.func.attr  # type: ignore[attr-defined]
    if kind in ("system", "getoutput"):
        return Magic(node, "!", "runs a shell command")
    args = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args]
    name = args[0] if args else None
    if name is None or None in args:
        return Magic(node, "?", "runs a magic the screen cannot read")
    line = args[1] if len(args) > 1 else ""
    body = args[2] if kind == "run_cell_magic" and len(args) > 2 else None
    if name in CODE_MAGICS:
        return _code_magic(node, name, line, body)
    if body is None and name == "matplotlib" and line.strip() in ("", "inline"):
        return Magic(node, name)
    if body is None and name == "config" and _literal_config(line):
        return Magic(node, name)
    if body is None and name in ("pinfo", "pinfo2"):
        return _pieces(Magic(node, name), [(line.strip(), node.lineno - 1)])
    return Magic(node, name, f"runs the magic %{name} (IPython's machinery, not what exercises use)")


def _code_magic(node: ast.Call, name: str, line: str, body: str | None) -> Magic:
    found = Magic(node, name)
    pieces = []
    if name == "timeit":
        setups, line = _timeit_options(line)
        pieces += [(setup, node.lineno - 1) for setup in setups]
    if name == "capture":
        if body is None or not _CAPTURE_ARGUMENTS.match(line):
            return Magic(node, name, "runs %%capture with arguments the screen cannot read")
    elif body is None or name == "timeit":  # %%time's line must be empty; %%timeit's line is its setup
        pieces.append((line, node.lineno - 1))
    if body is not None:  # a cell magic's body starts on the line after the %%
        pieces.append((body, node.lineno))
    return _pieces(found, pieces)


def _pieces(found: Magic, pieces: list[tuple[str, int]]) -> Magic:
    for code, offset in pieces:
        tree = parse(code) if code.strip() else ast.Module(body=[], type_ignores=[])
        if tree is None:
            found.problem = f"%{found.name} with code the screen cannot read"
            found.code = []
            return found
        found.code.append((tree, offset))
    return found


def _timeit_options(line: str) -> tuple[list[str], str]:
    """(the setup code of its -s options, the statement) of a %timeit line."""
    setups = []
    while (option := _TIMEIT_OPTION.match(line)) and option.group(0).strip():
        if option.group(1):
            setups.append(option.group(1).strip("\"'"))
        line = line[option.end():]
    return setups, line.strip()


def _literal_config(line: str) -> bool:
    """`%config InlineBackend.figure_format = 'retina'`: a setting of the inline plots, to a literal."""
    found = _CONFIG.match(line)
    if not found:
        return False
    try:
        tree = parse_python(found.group("value").strip())
        if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
            return False
        ast.literal_eval(tree.body[0].value)
    except (ValueError, SyntaxError, TypeError):
        return False
    return True
