"""The source screen: what a student's code reaches for, read from the notebook before it runs.

For instructors, whose grades must hold against a student who reads the tests' source and the
grader's. Whatever a notebook does at run time, it does through the code the student handed in,
and that code cannot be rewritten after the fact. Every cell the student wrote (answer cells,
cells they added, provided cells they edited) is read with `ast`, after IPython's own
transformation of magics and shell escapes, and held against an allowlist of what the exercises
need: the notebook's own names and provided code, torch's public tensor and module API, numpy,
matplotlib, math and a few other standard modules. Anything else is a finding, with its cell and
line:

- imports outside that list (os, sys beyond printing to stderr, ctypes, gc, inspect, threading,
  signal, subprocess, importlib, pathlib, ...), and torch's or numpy's machinery rather than their
  API (torch._C, torch.library, torch.ops, torch.overrides, torch.load, numpy.ctypeslib, ...);
- exec, eval, compile, __import__, open, globals, vars, get_ipython and IPython's history
  (In, Out, _i), magics other than %time, %timeit and %matplotlib, shell commands;
- dunder attributes (x.__class__, f.__globals__) beyond defining ordinary methods, frame and code
  objects (gi_frame, f_back, co_code), getattr/setattr/delattr with a name the screen cannot read,
  classes made with type(), metaclasses, tensor subclasses, methods such as __eq__ or
  __torch_function__ that change how the tests' own comparisons see an object;
- writes to what the student did not make: attributes of imported modules and classes
  (torch.allclose = ...), names the notebook's locked cells provide (checks = ...), the tests'
  variables from inside a function (global ref);
- the forbidden shortcut of an exercise (CURRICULUM.md: torch.softmax in `softmax`, ...), in the
  exercise's answer cell or in a function of the student's that it calls.

A finding is not a verdict: the submission is graded all the same, and held for the instructor to
look at (`gradebook.record`). Honest answers written in unusual ways (helper classes, einsum, much
printing, warnings, setattr on self in a loop) raise none: the catalogue's right answers prove it.
The screen is static and conservative: it reads names, not values, so code that hides what it
reaches for is itself a finding.
"""
from __future__ import annotations

import ast
import hashlib
import re
import symtable
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from course_utils.ipynb import nbgrader_meta

if TYPE_CHECKING:
    from nbformat import NotebookNode

# CPython 3.11's ast and symtable are not safe in several threads at once (python/cpython#106905: "AST
# constructor recursion depth mismatch"), and a grader's worker threads screen submissions side by side:
# every parse here, and the verdict engine's (verdicts.cell), takes this lock.
PARSE_LOCK = threading.Lock()

# Standard modules an exercise may import, whole.
STANDARD_MODULES = frozenset({
    "__future__", "abc", "array", "bisect", "cmath", "collections", "collections.abc", "contextlib", "copy",
    "dataclasses", "datetime", "decimal", "enum", "fractions", "functools", "heapq", "itertools", "json", "math",
    "numbers", "operator", "pprint", "random", "re", "statistics", "string", "textwrap", "time", "typing",
    "unicodedata", "warnings", "sys"})
# Packages an exercise may import from, their public modules (no part that starts with "_").
PACKAGES = ("torch", "numpy", "matplotlib", "tqdm", "sacrebleu", "course_utils.notebook")
# Of those packages, what reaches their machinery instead of their API: a path equal to or under one of these.
DENIED = frozenset({
    "torch.library", "torch.ops", "torch.overrides", "torch.utils.cpp_extension", "torch.hub", "torch.classes",
    "torch.multiprocessing", "torch.distributed", "torch.package", "torch.jit", "torch.compile", "torch.compiler",
    "torch.export", "torch.fx", "torch.load", "torch.save", "torch.from_file", "torch.serialization",
    "torch.set_default_dtype", "torch.set_default_device", "torch.set_default_tensor_type", "torch.cuda.cudart",
    "torch.utils.data.datapipes",
    "numpy.ctypeslib", "numpy.lib", "numpy.f2py", "numpy.distutils", "numpy.load", "numpy.save", "numpy.savez",
    "numpy.savez_compressed", "numpy.loadtxt", "numpy.savetxt", "numpy.genfromtxt", "numpy.fromfile",
    "numpy.fromregex", "numpy.memmap", "numpy.DataSource",
    "matplotlib.use", "matplotlib.rc_file", "matplotlib.pyplot.switch_backend", "matplotlib.pyplot.imread",
    "matplotlib.pyplot.imsave", "matplotlib.pyplot.savefig", "matplotlib.image",
})
DENIED_PARTS = ("register_module_",)  # torch.nn.modules.module.register_module_forward_hook: every module's calls
SYS_ATTRIBUTES = frozenset({"stdout", "stderr", "maxsize", "float_info", "int_info", "version", "version_info",
                            "platform", "byteorder", "getsizeof", "getrecursionlimit", "hash_info"})
# Submodules a `from X import Y` may bind (so that Y is a module, whose use as a value is followed).
SUBMODULES = frozenset({
    "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils", "torch.linalg", "torch.fft",
    "torch.special", "torch.distributions", "torch.optim", "torch.autograd", "torch.cuda", "torch.backends",
    "torch.utils", "torch.utils.data", "torch.testing", "numpy.linalg", "numpy.random", "numpy.fft",
    "matplotlib.pyplot", "course_utils.notebook.checks", "course_utils.notebook.trusted",
    "course_utils.notebook.plotting", "course_utils.notebook.progress", "course_utils.notebook.session",
    "course_utils.notebook.seeding", "course_utils.notebook.device", "course_utils.notebook.translation_data"})
# What may be set on a module: settings made to be set.
SETTABLE = ("torch.backends.",)
RC_PARAMS = ("figure.", "font.", "axes.", "lines.", "image.", "xtick.", "ytick.", "legend.", "grid.", "savefig.dpi")

RISKY_BUILTINS = {
    "exec": "runs code from a string", "eval": "runs code from a string", "compile": "compiles code from a string",
    "__import__": "imports by name", "open": "opens a file", "globals": "reaches the notebook's namespace",
    "locals": "reaches a namespace", "vars": "reaches an object's namespace", "breakpoint": "starts a debugger",
    "exit": "ends the kernel", "quit": "ends the kernel", "get_ipython": "reaches IPython's machinery",
    "memoryview": "reads raw memory", "__builtins__": "reaches the builtins",
}
IPYTHON_HISTORY = re.compile(r"^(In|Out|_ih|_oh|_dh|_i|_ii|_iii|_i\d+|_\d+|__|___)$")
DUNDER = re.compile(r"^__\w+__$")
READABLE_DUNDERS = frozenset({"__name__", "__qualname__", "__doc__", "__version__", "__module__"})
NAME_DUNDERS = frozenset({"__name__", "__doc__", "__debug__"})
# Methods a student's class may define; any other dunder (__eq__, __bool__, __getattr__, __del__,
# __torch_function__, __instancecheck__, ...) changes how the tests see or treat the object.
METHODS = frozenset({"__init__", "__repr__", "__str__", "__len__", "__iter__", "__next__", "__getitem__",
                     "__setitem__", "__contains__", "__call__", "__enter__", "__exit__", "__post_init__", "__lt__"})
FRAME_ATTRIBUTES = frozenset({
    "f_back", "f_builtins", "f_code", "f_globals", "f_lasti", "f_lineno", "f_locals", "f_trace", "f_trace_lines",
    "f_trace_opcodes", "tb_frame", "tb_lasti", "tb_lineno", "tb_next", "gi_frame", "gi_code", "gi_running",
    "gi_yieldfrom", "gi_suspended", "cr_frame", "cr_code", "cr_await", "cr_running", "cr_origin", "ag_frame",
    "ag_code", "ag_await", "ag_running", "func_globals", "func_code"})
FILE_METHODS = frozenset({"savefig", "tofile", "imsave", "read_text", "read_bytes", "write_text", "write_bytes"})
MAGICS = frozenset({"time", "timeit", "matplotlib", "pinfo", "pinfo2"})
CODE_MAGICS = frozenset({"time", "timeit"})   # their argument (or cell) is code, screened as such
TENSOR_CLASSES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.parameter.Parameter",
                            "torch.nn.Buffer", "torch.nn.parameter.Buffer"})

# Each exercise's forbidden shortcuts (CURRICULUM.md): attribute names (torch.softmax, x.softmax, trusted.softmax)
# and modules that, reached from the exercise's answer, do the thing the exercise teaches.
_ATTENTION = ("scaled_dot_product_attention", "MultiheadAttention", "multi_head_attention_forward",
              "Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
              "TransformerDecoderLayer")
SHORTCUTS: dict[str, tuple[str, ...]] = {
    "softmax": ("softmax", "log_softmax", "softmin", "Softmax", "LogSoftmax", "Softmin"),
    "LayerNorm": ("layer_norm", "LayerNorm", "native_layer_norm", "group_norm", "GroupNorm", "rms_norm", "RMSNorm"),
    "corpus_bleu": ("sacrebleu", "corpus_bleu", "sentence_bleu", "BLEU", "nltk"),
}
# The attention shortcuts hold in every exercise but those of the notebook that teaches SDPA itself.
ATTENTION_TAUGHT = ("09_efficient_attention",)


@dataclass(frozen=True)
class Finding:
    cell: str      # "softmax" (an answer cell's grade id), "cell 12 (added)", "cell 7 (edited)"
    line: int
    what: str

    @property
    def flag(self) -> str:
        return f"source: {self.cell}, line {self.line}: {self.what}"


@dataclass
class Context:
    """What the screen knows of the notebook besides the submission (from the release and the gradebook)."""
    release_cells: frozenset[str] = frozenset()   # digests of the release's code cells: the course's, not the student's
    provided: frozenset[str] = frozenset()        # names the locked cells bind (provided code, their imports)
    imports: dict[str, str] = field(default_factory=dict)  # of those, imported names -> the dotted path imported
    modules: frozenset[str] = frozenset()         # of those, the names bound to a module itself (torch, F, checks)
    test_names: frozenset[str] = frozenset()      # names only the test cells bind (their variables)
    assignment: str = ""
    exercises: frozenset[str] = frozenset()       # the answer cells' grade ids: softmax, LayerNorm, ...

    def shortcuts(self, exercise: str) -> tuple[str, ...]:
        own = SHORTCUTS.get(exercise, ())
        return own if self.assignment in ATTENTION_TAUGHT else (*own, *_ATTENTION)


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


def imported_paths(tree: ast.AST) -> tuple[dict[str, str], set[str]]:
    """({name: the dotted path its import binds}, the names bound to modules) of a cell's imports."""
    paths, modules = {}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                paths[bound] = alias.name if alias.asname else bound
                modules.add(bound)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                path = f"{node.module}.{alias.name}"
                paths[alias.asname or alias.name] = path
                if path in SUBMODULES:
                    modules.add(alias.asname or alias.name)
    return paths, modules


def context(release: NotebookNode, locked: Iterable[tuple[str, bool]], assignment: str = "",
            exercises: Iterable[str] = ()) -> Context:
    """The screen's context from the release notebook, the gradebook's locked cells [(source, is a test)]
    and its answer cells' grade ids."""
    provided, tests, imports, modules = set(), set(), {}, set()
    for source, is_test in locked:
        tree = _parse(source)
        names, defined = bound_names(tree)
        if tree is not None and not is_test:
            found, found_modules = imported_paths(tree)
            imports.update(found)
            modules |= found_modules
        if is_test:
            tests |= names
            provided |= defined  # a test's helper functions: a student's cell between two tests may not replace them
        else:
            provided |= names
    ordinary = set()
    codes = [c for c in release.cells if c.cell_type == "code"]
    for cell in codes:
        if not nbgrader_meta(cell).get("locked"):
            ordinary |= bound_names(_parse(cell.source))[0]
    return Context(frozenset(digest(c.source) for c in codes), frozenset(provided), imports, frozenset(modules),
                   frozenset(tests - provided - ordinary), assignment, frozenset(exercises))


def _parse(source: str) -> ast.Module | None:
    """A cell as Python, the way IPython runs it (magics and shell escapes become calls)."""
    from IPython.core.inputtransformer2 import TransformerManager

    try:
        with PARSE_LOCK:
            return ast.parse(TransformerManager().transform_cell(source))
    except (SyntaxError, ValueError, IndexError):  # the cell fails when it runs: nothing to screen
        return None


# ---------------------------------------------------------------------------- the screen


@dataclass
class _Cell:
    label: str
    tree: ast.Module
    source: str
    exercise: str = ""              # the graded exercise this cell answers ("" for none)
    offset: int = 0                 # lines above this code in the cell (a %%time cell's body)


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


def screen(nb: NotebookNode, ctx: Context) -> list[Finding]:
    """Every finding in the cells the student wrote, in notebook order, each (cell, line, what) once."""
    cells = []
    for label, source, exercise in student_cells(nb, ctx):
        tree = _parse(source)
        if tree is None:
            continue
        if not exercise:  # an exercise defined outside its answer cell is still that exercise's answer
            exercise = next((n.name for n in tree.body if isinstance(
                n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name in ctx.exercises), "")
        cells.append(_Cell(label, tree, source, exercise))
    names = _Names.of(cells, ctx)
    findings: list[Finding] = []
    for cell in cells:
        reached = _reached_definitions(cell, cells) if cell.exercise else []
        _Screen(cell, names, ctx, findings, reached).run()
    unique, seen = [], set()
    for finding in findings:
        if finding not in seen:
            seen.add(finding)
            unique.append(finding)
    return unique


@dataclass
class _Names:
    """What the names of the submission stand for, across its cells."""
    paths: dict[str, str] = field(default_factory=dict)      # name -> dotted path of what it was imported as
    modules: set[str] = field(default_factory=set)           # names bound to a module itself
    derived: set[str] = field(default_factory=set)           # names that may hold an imported object or class
    functions: set[str] = field(default_factory=set)         # functions and classes the student defined
    student_globals: set[str] = field(default_factory=set)   # names the student's cells bind at top level

    @classmethod
    def of(cls, cells: list[_Cell], ctx: Context) -> _Names:
        names = cls(dict(ctx.imports), set(ctx.modules))  # the provided cells': torch, nn, F, checks, trusted, ...
        for cell in cells:
            paths, modules = imported_paths(cell.tree)
            names.paths.update(paths)
            names.modules |= modules
            for node in cell.tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.functions.add(node.name)
            names.student_globals |= bound_names(cell.tree)[0]
        # Aliases (t = torch.nn) and anything made from an imported object (T = type(x), pair = [torch.Tensor]).
        for _ in range(3):
            for cell in cells:
                for target, value in _assignments(cell.tree):
                    if not isinstance(target, ast.Name):
                        continue
                    path = names.path_of(value)
                    if path and target.id not in names.paths:
                        names.paths[target.id] = path
                        if isinstance(value, ast.Name) and value.id in names.modules:
                            names.modules.add(target.id)
                    if names.refers_to_imports(value, ctx):
                        names.derived.add(target.id)
        return names

    def path_of(self, node: ast.AST) -> str:
        """The dotted path an expression names (torch.nn.functional.softmax), or ""."""
        parts = []
        while True:
            if isinstance(node, ast.Attribute):
                parts.append(node.attr)
                node = node.value
            elif isinstance(node, ast.Call) and _constant_getattr(node):
                parts.append(node.args[1].value)
                node = node.args[0]
            else:
                break
        if isinstance(node, ast.Name) and node.id in self.paths:
            return ".".join([self.paths[node.id], *reversed(parts)])
        return ""

    def refers_to_imports(self, node: ast.AST, ctx: Context) -> bool:
        """Whether an expression's value may be an imported object: not a call's fresh result."""
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "type" and len(node.args) == 1:
                return True
            if _constant_getattr(node):
                return self.refers_to_imports(node.args[0], ctx)
            return False
        if isinstance(node, ast.Name):
            return node.id in self.paths or node.id in self.derived or node.id in ctx.provided
        return any(self.refers_to_imports(child, ctx) for child in ast.iter_child_nodes(node))


def _assignments(tree: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(target, value) of every binding whose value the screen can see."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                yield from _pairs(target, node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)) and node.value is not None:
            yield node.target, node.value
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            yield from _pairs(node.target, node.iter)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    yield item.optional_vars, item.context_expr


def _pairs(target: ast.AST, value: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _pairs(element.value if isinstance(element, ast.Starred) else element, value)
    else:
        yield target, value


def _constant_getattr(node: ast.Call) -> bool:
    return (isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str))


def _reached_definitions(cell: _Cell, cells: list[_Cell]) -> list[tuple[_Cell, ast.AST]]:
    """The student's functions and classes in other cells that this cell calls, directly or not, with their cells."""
    defined = {node.name: (c, node) for c in cells if c is not cell for node in c.tree.body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    own = {node.name for node in cell.tree.body
           if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    todo, reached = [cell.tree], {}
    while todo:
        for node in ast.walk(todo.pop()):
            if isinstance(node, ast.Name) and node.id in defined and node.id not in own and node.id not in reached:
                reached[node.id] = defined[node.id]
                todo.append(defined[node.id][1])
    return list(reached.values())


class _Screen(ast.NodeVisitor):
    """One cell's findings."""

    def __init__(self, cell: _Cell, names: _Names, ctx: Context, findings: list[Finding],
                 reached: list[tuple[_Cell, ast.AST]]) -> None:
        self.cell, self.names, self.ctx, self.findings = cell, names, ctx, findings
        self.shortcuts = ctx.shortcuts(cell.exercise) if cell.exercise else ()
        self.reached = reached
        self.parents: dict[ast.AST, ast.AST] = {}
        self.depth = 0   # functions and classes we are inside

    def run(self) -> None:
        for node in ast.walk(self.cell.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        self.visit(self.cell.tree)
        self._scopes()
        for cell, definition in self.reached:  # a helper of the student's that this answer calls
            self._shortcuts_in(cell, definition)

    def add(self, node: ast.AST, what: str) -> None:
        self.findings.append(Finding(self.cell.label, self.cell.offset + getattr(node, "lineno", 1), what))

    # -- imports

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._module(node, alias.name)
            self._shortcut_name(node, alias.name)
            bound = alias.asname or alias.name.split(".")[0]
            self._imports_over(node, bound, alias.name if alias.asname else bound)
        self.generic_visit(node)

    def _imports_over(self, node: ast.AST, bound: str, path: str) -> None:
        """An import that binds a provided name: fine if it binds the same thing (import torch, again)."""
        if bound in self.ctx.provided and self.ctx.imports.get(bound) != path:
            self._rebinds(node, bound)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:
            self.add(node, f"imports from a relative module ({'.' * node.level}{module})")
            return
        self._module(node, module)
        for alias in node.names:
            if alias.name == "*":
                self.add(node, f"imports * from {module} (every name, over the notebook's own)")
                continue
            if DUNDER.match(alias.name) or alias.name.startswith("_") and module != "__future__":
                self.add(node, f"imports {module}.{alias.name} (a private or internal name)")
            self._path(node, f"{module}.{alias.name}")
            self._shortcut_name(node, f"{module}.{alias.name}")
            self._imports_over(node, alias.asname or alias.name, f"{module}.{alias.name}")

    def _module(self, node: ast.AST, module: str) -> None:
        if not _allowed_module(module):
            self.add(node, f"imports {module} (not a module the exercises use)")
        else:
            self._path(node, module)

    # -- names

    def visit_Name(self, node: ast.Name) -> None:
        name, parent = node.id, self.parents.get(node)
        if isinstance(node.ctx, ast.Load):
            if name in RISKY_BUILTINS and name not in self._locals(node) | self.names.student_globals:
                self.add(node, f"uses {name} ({RISKY_BUILTINS[name]})")
            elif IPYTHON_HISTORY.match(name) and name not in self.names.student_globals:
                self.add(node, f"reads {name} (IPython's record of the cells run, the tests' among them)")
            elif DUNDER.match(name) and name not in NAME_DUNDERS:
                self.add(node, f"uses {name}")
            elif name in ("getattr", "setattr", "delattr", "type") and not (
                    isinstance(parent, ast.Call) and parent.func is node):
                self.add(node, f"passes {name} around (an attribute access the screen cannot read)")
            elif name in self.names.modules and not self._module_use_followed(node, parent):
                self.add(node, f"passes the module {self.names.paths.get(name, name)} around "
                               "(the screen cannot follow what is done to it)")
            path = self.names.paths.get(name)
            if path and not isinstance(parent, ast.Attribute):  # an imported name (the chain's own check below)
                self._shortcut_name(node, path)
        else:
            self._rebinds(node, name)
        self.generic_visit(node)

    def _module_use_followed(self, node: ast.Name, parent: ast.AST | None) -> bool:
        if isinstance(parent, ast.Attribute):
            return True
        if isinstance(parent, ast.Assign) and parent.value is node and all(
                isinstance(t, ast.Name) for t in parent.targets):
            return True  # an alias: t = torch (followed through names.paths)
        return isinstance(parent, ast.Call) and _constant_getattr(parent) and parent.args[0] is node

    def _rebinds(self, node: ast.AST, name: str) -> None:
        if name in self.ctx.provided and (self.depth == 0 or name in self._declared_global(node)):
            self.add(node, f"rebinds {name}, which the notebook provides")

    def _locals(self, node: ast.AST) -> set[str]:
        """Names a function around `node` binds itself (a parameter named `open`, say)."""
        found: set[str] = set()
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                found |= {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
                found |= {a.arg for a in (node.args.vararg, node.args.kwarg) if a is not None}
        return found

    def _declared_global(self, node: ast.AST) -> set[str]:
        while node in self.parents:
            node = self.parents[node]
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return {n for g in ast.walk(node) if isinstance(g, ast.Global) for n in g.names}
        return set()

    # -- attributes

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr, parent = node.attr, self.parents.get(node)
        if DUNDER.match(attr):
            called = isinstance(parent, ast.Call) and parent.func is node
            readable = attr in READABLE_DUNDERS and isinstance(node.ctx, ast.Load)
            if not readable and not (attr == "__init__" and called):
                self.add(node, f"reaches .{attr} (the interpreter's inside of an object)")
        elif attr in FRAME_ATTRIBUTES or attr.startswith("co_"):
            self.add(node, f"reaches .{attr} (frames and code objects: the interpreter's inside)")
        elif attr in FILE_METHODS:
            self.add(node, f"calls .{attr} (files)")
        path = self.names.path_of(node)
        if path and not isinstance(parent, ast.Attribute):  # the whole chain, once
            self._path(node, path)
        if attr in self.shortcuts:
            self.add(node, f"uses .{attr}, a shortcut this exercise may not take")
        if not isinstance(node.ctx, ast.Load):
            self._write(node, node)
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if not isinstance(node.ctx, ast.Load):
            self._write(node, node)
        self.generic_visit(node)

    def _path(self, node: ast.AST, path: str) -> None:
        """Checks on a dotted path into an imported module."""
        parts = path.split(".")
        root = parts[0]
        if root == "sys":
            if len(parts) > 1 and parts[1] not in SYS_ATTRIBUTES:
                self.add(node, f"reaches {'.'.join(parts[:2])} (the interpreter's state)")
            return
        if any(p.startswith("_") and not DUNDER.match(p) for p in parts[1:]):
            self.add(node, f"reaches {path} (a private name)")
        elif any(path == d or path.startswith(d + ".") for d in DENIED) or any(
                p.startswith(DENIED_PARTS) for p in parts):
            self.add(node, f"reaches {path} (machinery, files or processes, not what exercises use)")

    def _shortcut_name(self, node: ast.AST, path: str) -> None:
        parts = path.split(".")
        hit = next((p for p in parts if p in self.shortcuts), None)
        if hit and parts[0] in {p.split(".")[0] for p in (*PACKAGES, "nltk")}:
            self.add(node, f"uses {path}, a shortcut this exercise may not take")

    # -- writes

    def _write(self, target: ast.AST, node: ast.AST) -> None:
        """A write into `target` (an attribute or item): fine on what the student made, not elsewhere."""
        base = target.value  # type: ignore[attr-defined]
        path = self.names.path_of(base if isinstance(target, ast.Subscript) else target)
        if path and path.startswith(SETTABLE):
            return
        if isinstance(target, ast.Subscript) and path.endswith("rcParams"):
            key = target.slice
            if isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.startswith(RC_PARAMS):
                return
        root = base
        while isinstance(root, (ast.Attribute, ast.Subscript)) or (
                isinstance(root, ast.Call) and _constant_getattr(root)):
            root = root.args[0] if isinstance(root, ast.Call) else root.value
        what = ast.unparse(target)
        if isinstance(root, ast.Name):
            into_container = isinstance(target, ast.Subscript) and base is root  # pairs[0] = ...: the list itself
            if root.id in self.names.paths or (root.id in self.names.derived and not into_container):
                self.add(node, f"writes to {what} (part of an imported module or class)")
            elif root.id in self.ctx.provided:
                self.add(node, f"writes to {what} (the notebook provides {root.id})")
        elif isinstance(root, ast.Call) and isinstance(root.func, ast.Name):
            if root.func.id in ("type", "vars", "globals", "locals", "super"):
                self.add(node, f"writes to {what} (a class or namespace)")
            elif root.func.id in self.names.functions:
                self.add(node, f"writes to {what} (into what {root.func.id}() returns, which the screen cannot follow)")
        elif not isinstance(root, ast.Call) and self.names.refers_to_imports(root, self.ctx):
            self.add(node, f"writes to {what} (part of an imported module or class)")

    # -- calls

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if _magic_call(node):
            self._magic(node)
            return
        if isinstance(func, ast.Name):
            if func.id in ("getattr", "setattr", "delattr"):
                self._attribute_call(node, func.id)
            elif func.id == "type" and len(node.args) == 3:
                self.add(node, "makes a class with type() (what it holds is hidden from the screen)")
        elif isinstance(func, ast.Attribute) and func.attr in ("attrgetter", "methodcaller"):
            for arg in node.args[:1 if func.attr == "methodcaller" else None]:
                self._attribute_name(node, arg, func.attr)
        self.generic_visit(node)

    def _attribute_call(self, node: ast.Call, kind: str) -> None:
        if len(node.args) < 2:
            return
        obj, name = node.args[0], node.args[1]
        names = _constant_strings(name, node, self.parents)
        if names is None:
            self.add(node, f"{kind} with a name the screen cannot read")
            return
        for attr in names:
            if DUNDER.match(attr) and attr not in READABLE_DUNDERS:
                self.add(node, f"{kind} of {attr} (the interpreter's inside of an object)")
            elif attr in FRAME_ATTRIBUTES or attr.startswith("co_"):
                self.add(node, f"{kind} of {attr} (frames and code objects)")
            if attr in self.shortcuts:
                self.add(node, f"{kind} of {attr}, a shortcut this exercise may not take")
            path = self.names.path_of(obj)
            if path:
                self._path(node, f"{path}.{attr}")
            if kind != "getattr":
                fake = ast.Attribute(value=obj, attr=attr, ctx=ast.Store())
                self._write(fake, node)

    def _attribute_name(self, node: ast.Call, arg: ast.AST, kind: str) -> None:
        names = _constant_strings(arg, node, self.parents)
        if names is None:
            self.add(node, f"{kind} with a name the screen cannot read")
            return
        for dotted in names:
            for attr in dotted.split("."):
                if DUNDER.match(attr) or attr in FRAME_ATTRIBUTES or attr in self.shortcuts:
                    self.add(node, f"{kind} of {attr}")

    def _magic(self, node: ast.Call) -> None:
        kind = node.func.attr  # type: ignore[attr-defined]
        if kind in ("system", "getoutput"):
            self.add(node, "runs a shell command")
            return
        args = [a.value if isinstance(a, ast.Constant) else None for a in node.args]
        name = args[0] if args else None
        if name not in MAGICS:
            self.add(node, f"runs the magic %{name} (IPython's machinery, not what exercises use)")
            return
        if name in CODE_MAGICS:
            # A line magic's code is on its own line; a cell magic's line may hold a statement (%%timeit's
            # setup) and its body starts on the next line.
            pieces = [(_without_options(args[1] or ""), node.lineno - 1)]
            if kind == "run_cell_magic":
                pieces.append((args[2] or "", node.lineno))
            for code, offset in pieces:
                tree = _parse(code) if code.strip() else ast.Module(body=[], type_ignores=[])
                if tree is None or None in args:
                    self.add(node, f"%{name} with code the screen cannot read")
                    return
                inner = _Cell(self.cell.label, tree, code, self.cell.exercise, self.cell.offset + offset)
                _Screen(inner, self.names, self.ctx, self.findings, []).run()

    # -- definitions

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            path = self.names.path_of(base)
            if path in TENSOR_CLASSES or (isinstance(base, ast.Name) and base.id in ("Tensor", "Parameter")):
                self.add(node, f"class {node.name} subclasses a tensor (its results can lie to the tests)")
        for keyword in node.keywords:
            if keyword.arg == "metaclass":
                self.add(node, f"class {node.name} has a metaclass")
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and DUNDER.match(item.name) \
                    and item.name not in METHODS:
                self.add(item, f"defines {node.name}.{item.name} (changes how the tests see its objects)")
        self._rebinds(node, node.name)
        self._nested(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if DUNDER.match(node.name) and self.depth == 0:
            self.add(node, f"defines {node.name}")
        self._rebinds(node, node.name)
        self._nested(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._nested(node)

    def _nested(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            if name in self.ctx.test_names or name in self.ctx.provided:
                self.add(node, f"declares global {name} (a name the notebook's locked cells use)")

    # -- scopes: what functions read of the tests' variables

    def _scopes(self) -> None:
        try:
            with PARSE_LOCK:
                table = symtable.symtable(ast.unparse(self.cell.tree), "<cell>", "exec")
        except SyntaxError:
            return
        todo = list(table.get_children())
        while todo:
            scope = todo.pop()
            todo.extend(scope.get_children())
            for symbol in scope.get_symbols():
                name = symbol.get_name()
                if symbol.is_global() and symbol.is_referenced() and name in self.ctx.test_names \
                        and name not in self.names.student_globals:
                    line = _first_line(self.cell.tree, scope, name)
                    self.findings.append(Finding(self.cell.label, self.cell.offset + line,
                                                 f"{scope.get_name()} reads {name}, a variable of the test cells"))

    def _shortcuts_in(self, cell: _Cell, definition: ast.AST) -> None:
        """Shortcuts of this cell's exercise in a helper of the student's (in `cell`) that the answer calls."""
        why = f"a shortcut {self.cell.exercise} (which calls {getattr(definition, 'name', '?')}) may not take"
        for node in ast.walk(definition):
            found = ""
            if isinstance(node, ast.Attribute) and node.attr in self.shortcuts:
                found = f".{node.attr}"
            elif isinstance(node, ast.Name) and node.id in self.names.paths:
                if any(p in self.shortcuts for p in self.names.paths[node.id].split(".")):
                    found = self.names.paths[node.id]
            if found:
                self.findings.append(Finding(cell.label, cell.offset + node.lineno, f"uses {found}, {why}"))


def _allowed_module(module: str) -> bool:
    if module in STANDARD_MODULES:
        return True
    for package in PACKAGES:
        if module == package or module.startswith(package + "."):
            rest = module[len(package):].split(".")[1:]
            return not any(p.startswith("_") for p in rest)
    return False


def _magic_call(node: ast.Call) -> bool:
    func = node.func
    return (isinstance(func, ast.Attribute) and func.attr in ("run_line_magic", "run_cell_magic", "system", "getoutput")
            and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name)
            and func.value.func.id == "get_ipython")


def _without_options(line: str) -> str:
    """A %timeit line without its options (-n 3 -r 1 -q ...): the statement it times."""
    words = line.split()
    while words and words[0].startswith("-"):
        option = words.pop(0)
        if option in ("-n", "-r", "-p") and words:
            words.pop(0)
    return " ".join(words)


def _constant_strings(node: ast.AST, at: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[str] | None:
    """Every string `node` can be, where the screen can tell (a constant, a loop over constants), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        values = [""]
        for part in node.values:
            inner = part.value if isinstance(part, ast.FormattedValue) else part
            options = _constant_strings(inner, at, parents)
            if options is None:
                return None
            values = [v + o for v in values for o in options]
        return values
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _constant_strings(node.left, at, parents), _constant_strings(node.right, at, parents)
        return None if left is None or right is None else [a + b for a in left for b in right]
    if isinstance(node, ast.Name):
        return _loop_values(node.id, at, parents)
    return None


def _loop_values(name: str, at: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[str] | None:
    """The strings a loop variable takes, where the loop (for or comprehension) runs over literals."""
    node = at
    while node in parents:
        node = parents[node]
        loops = [node] if isinstance(node, (ast.For, ast.AsyncFor)) else (
            node.generators if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)) else [])
        for loop in loops:
            position = _position(loop.target, name)
            if position is None:
                continue
            rows = _literal_rows(loop.iter, node, parents)
            if rows is None:
                return None
            values = []
            for row in rows:
                item = row if position == () else _index(row, position)
                if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
                    return None
                values.append(item.value)
            return values
    return None


def _position(target: ast.AST, name: str) -> tuple[int, ...] | None:
    if isinstance(target, ast.Name):
        return () if target.id == name else None
    if isinstance(target, (ast.Tuple, ast.List)):
        for i, element in enumerate(target.elts):
            inner = _position(element, name)
            if inner is not None:
                return (i, *inner)
    return None


def _index(row: ast.AST, position: tuple[int, ...]) -> ast.AST | None:
    for i in position:
        if not isinstance(row, (ast.Tuple, ast.List)) or i >= len(row.elts):
            return None
        row = row.elts[i]
    return row


def _literal_rows(node: ast.AST, at: ast.AST, parents: dict[ast.AST, ast.AST]) -> list[ast.AST] | None:
    """The elements a loop runs over, where they are written out: a tuple, a list, a dict's .items()."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return list(node.elts)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [ast.Constant(c) for c in node.value]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
        mapping = _dict_literal(node.func.value, at, parents)
        if mapping is not None and node.func.attr in ("items", "keys", "values"):
            pairs = list(zip(mapping.keys, mapping.values))
            if node.func.attr == "items":
                return [ast.Tuple(elts=[k, v], ctx=ast.Load()) for k, v in pairs]
            return [k if node.func.attr == "keys" else v for k, v in pairs]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("zip", "enumerate"):
        columns = [_literal_rows(a, at, parents) for a in node.args]
        if node.func.id == "enumerate" and columns and columns[0] is not None:
            return [ast.Tuple(elts=[ast.Constant(i), row], ctx=ast.Load()) for i, row in enumerate(columns[0])]
        if columns and all(c is not None for c in columns):
            return [ast.Tuple(elts=list(row), ctx=ast.Load()) for row in zip(*columns)]
        return None
    mapping = _dict_literal(node, at, parents)
    return list(mapping.keys) if mapping is not None else None


def _dict_literal(node: ast.AST, at: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.Dict | None:
    """`node` as a dict literal: written out, or a name the enclosing function binds once to one."""
    if isinstance(node, ast.Dict):
        return node
    if not isinstance(node, ast.Name):
        return None
    scope = at
    while scope in parents and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        scope = parents[scope]
    found = [n.value for n in ast.walk(scope) if isinstance(n, ast.Assign)
             and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)]
    return found[0] if len(found) == 1 and isinstance(found[0], ast.Dict) else None


def _first_line(tree: ast.Module, scope: symtable.SymbolTable, name: str) -> int:
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == scope.get_name():
            for inner in ast.walk(node):
                if isinstance(inner, ast.Name) and inner.id == name:
                    return inner.lineno
            return node.lineno
    return scope.get_lineno()
