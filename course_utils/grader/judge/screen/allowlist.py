"""The screen's allowlist, looked up: what a dotted path a student's code reaches is, if anything.

For the screen's value analysis and rules (`values`, `rules`), which ask of every module, function,
class or value a student's code names whether it is on the allowlist and what kind of thing it is.
The lists themselves are data (`allowed_torch`, `allowed_python`, `allowed_methods`); this module
joins them with the course's own notebook modules, read from their source so that the screen never
imports them (they import torch): `trusted.sdpa` is torch's `scaled_dot_product_attention` under
another name, and the screen must see the function, not the name. It also holds what the lists
cannot say: the settings a notebook may set, the callables whose arguments decide whether they
run code or start processes, and the builtins whose results hold their arguments.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

from course_utils.grader.judge.screen import allowed_python, allowed_torch
from course_utils.grader.judge.screen.allowed_methods import METHODS
from course_utils.grader.judge.screen.parsing import parse_python

MODULE, FUNCTION, CLASS, VALUE = "module", "function", "class", "value"

NOTEBOOK_PACKAGE = "course_utils.notebook"
# The course's notebook modules a student's code may use, and what of each: "*" is every public name the
# module itself defines (not what it imports: `checks.os` is no part of the course). Not `tracing` (the
# kernel's machinery), and of `progress` only its summary (`standing` runs test code it reads from a file).
NOTEBOOK_MODULES = {"checks": "*", "trusted": "*", "plotting": "*", "seeding": "*", "device": "*",
                    "translation_data": "*", "listening": "*", "progress": "summary",
                    "session": "setup_notebook Session", "budget": "SafetyLimit", "readout": "*"}

# Settings made to be set (what a notebook may assign into a module), and matplotlib's settings of
# how plots look (rcParams keys; not "backend", which imports a module by name).
SETTABLE_ATTRIBUTES = frozenset({
    "torch.backends.cudnn.deterministic", "torch.backends.cudnn.benchmark", "torch.backends.cudnn.enabled",
    "torch.backends.cudnn.allow_tf32", "torch.backends.cuda.matmul.allow_tf32",
    "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
    "torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction"})
SETTABLE_ITEMS = {"matplotlib.rcParams": ("figure.", "font.", "axes.", "lines.", "image.", "xtick.", "ytick.",
                                          "legend.", "grid.", "savefig.dpi")}
SETTABLE_ITEMS["matplotlib.pyplot.rcParams"] = SETTABLE_ITEMS["matplotlib.rcParams"]

# Callables whose other arguments pick compilers, commands or worker processes: (the positional
# arguments they may take, the keywords they may take). torch.compile's backend= and options= choose
# what runs (inductor's options name the C++ compiler); DataLoader's num_workers= starts processes.
_COMPILE_KEYWORDS = frozenset({"fullgraph", "dynamic", "mode", "disable"})
CONSTRAINED = {
    "torch.compile": (1, _COMPILE_KEYWORDS),
    "torch.utils.data.DataLoader": (5, frozenset({"dataset", "batch_size", "shuffle", "sampler", "batch_sampler",
                                                  "collate_fn", "pin_memory", "drop_last", "generator"})),
}
CONSTRAINED_METHODS = {"compile": (0, _COMPILE_KEYWORDS)}  # nn.Module.compile: torch.compile in place

# Functions whose result holds what they were given (so that what they return is what went in):
# containers made of their arguments' elements, and picks of one of them.
CONTAINERS = frozenset({
    "builtins.list", "builtins.tuple", "builtins.set", "builtins.frozenset", "builtins.dict", "builtins.iter",
    "builtins.zip", "builtins.enumerate", "builtins.reversed", "builtins.sorted", "builtins.filter", "builtins.map",
    "copy.copy", "collections.deque", "collections.OrderedDict", "collections.ChainMap", "random.sample",
    "heapq.nlargest", "heapq.nsmallest", "heapq.merge"})
# Functions that make callables (an itemgetter, a partial): what calling those returns is not followed.
MAKES_CALLABLES = frozenset({"operator.itemgetter", "operator.attrgetter", "operator.methodcaller", "functools.partial",
                             "functools.partialmethod"})
# Packages whose every function may return a container of its arguments (numpy's arrays of objects).
CONTAINER_PACKAGES = ("numpy.",)
PICKS = frozenset({"builtins.next", "builtins.min", "builtins.max", "random.choice", "heapq.heappop",
                   "heapq.heappushpop", "heapq.heapreplace", "functools.reduce", "operator.getitem",
                   "contextlib.nullcontext", "typing.cast"})


def _table(*sources: object) -> dict[str, str]:
    table = {}
    for source in sources:
        for module in source.MODULES:  # type: ignore[attr-defined]
            table[module] = MODULE
        for kind, groups in ((FUNCTION, source.FUNCTIONS), (CLASS, source.CLASSES),  # type: ignore[attr-defined]
                             (VALUE, source.VALUES)):  # type: ignore[attr-defined]
            for module, names in groups.items():
                for name in names.split():
                    table[f"{module}.{name}"] = kind
    return table


_PATHS = _table(allowed_torch, allowed_python)
for _setting in SETTABLE_ATTRIBUTES:
    _PATHS.setdefault(_setting, VALUE)  # read as well as set


def kind(path: str) -> str | None:
    """What the dotted path names (MODULE, FUNCTION, CLASS or VALUE), or None when it is not on the allowlist."""
    path = resolve(path)
    return _PATHS.get(path) or _notebook()[0].get(path)


def resolve(path: str) -> str:
    """The path of what `path` names: the course's other names for torch's functions followed
    (course_utils.notebook.trusted.softmax is torch.softmax), and the package's exports."""
    aliases = _notebook()[1]
    for _ in range(5):  # an alias of an alias, not a loop
        prefix = next((p for p in _prefixes(path) if p in aliases), None)
        if prefix is None:
            return path
        path = aliases[prefix] + path[len(prefix):]
    return path


def builtin(name: str) -> str | None:
    """What the builtin `name` is (FUNCTION, VALUE, ...), or None when it is not on the allowlist."""
    return _PATHS.get(f"builtins.{name}")


@functools.cache
def method_names() -> frozenset[str]:
    """Method names that may be called on any value: the allowlist's and the course's notebook classes'."""
    return METHODS | _notebook()[2]


def _prefixes(path: str) -> list[str]:
    parts = path.split(".")
    return [".".join(parts[:i]) for i in range(len(parts), 0, -1)]


@functools.cache
def _notebook() -> tuple[dict[str, str], dict[str, str], frozenset[str]]:
    """({path: kind}, {path: the path it is another name for}, method and field names of the classes) of
    the course's notebook modules, read from their source."""
    folder = Path(__file__).resolve().parents[3] / "notebook"
    kinds = {"course_utils": MODULE, NOTEBOOK_PACKAGE: MODULE}
    aliases: dict[str, str] = {}
    methods: set[str] = set()
    for module, allowed in NOTEBOOK_MODULES.items():
        path = f"{NOTEBOOK_PACKAGE}.{module}"
        kinds[path] = MODULE
        tree = parse_python((folder / f"{module}.py").read_text())
        names = _defined(tree, path, kinds, aliases, methods)
        if allowed != "*":
            for name in names - set(allowed.split()):
                kinds.pop(f"{path}.{name}", None)
                aliases.pop(f"{path}.{name}", None)
    exports = _exports(parse_python((folder / "__init__.py").read_text()))
    for name, (module, attribute) in exports.items():
        if attribute or module != f"{NOTEBOOK_PACKAGE}.{name}":
            aliases[f"{NOTEBOOK_PACKAGE}.{name}"] = module + (f".{attribute}" if attribute else "")
    return kinds, aliases, frozenset(methods)


def _defined(tree: ast.Module, module: str, kinds: dict[str, str], aliases: dict[str, str],
             methods: set[str]) -> set[str]:
    """The public names a course module defines itself, entered into `kinds` and `aliases`."""
    imported = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            imported |= {(a.asname or a.name.split(".")[0]): (a.name if a.asname else a.name.split(".")[0])
                         for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported |= {(a.asname or a.name): f"{node.module}.{a.name}" for a in node.names}
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found = {node.name: CLASS if isinstance(node, ast.ClassDef) else FUNCTION}
            if isinstance(node, ast.ClassDef):
                methods |= {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
                methods |= {n.target.id for n in node.body if isinstance(n, ast.AnnAssign)
                            and isinstance(n.target, ast.Name)}
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found = {t.id: VALUE for t in targets if isinstance(t, ast.Name)}
            target = _dotted(node.value, imported)
            for name in found:
                if target:
                    aliases[f"{module}.{name}"] = target
        else:
            continue
        for name, what in found.items():
            if not name.startswith("_"):
                kinds[f"{module}.{name}"] = what
                names.add(name)
    return names


def _dotted(node: ast.AST, imported: dict[str, str]) -> str:
    """The dotted path an expression names through the module's imports (torch.softmax), or ""."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and node.id in imported:
        return ".".join([imported[node.id], *reversed(parts)])
    return ""


def _exports(tree: ast.Module) -> dict[str, tuple[str, str | None]]:
    """The package's lazy exports (`_EXPORTS` in course_utils/notebook/__init__.py): {name: (module, attribute)}."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "_EXPORTS" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}
