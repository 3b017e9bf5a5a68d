"""Tamper evidence inside a graded kernel: what the tests rely on, snapshotted and re-checked.

Loaded by `sandbox` into every graded kernel before the first cell. It snapshots, by
identity, everything a test cell's verdict depends on besides the student's own answers:

- the namespaces of the modules the tests call (the course's `course_utils` modules, torch's
  public modules, numpy, math, builtins) and the dictionaries of the classes defined there
  (every method of `torch.Tensor`, `nn.Module`, the course's references), with each
  function's code, defaults and closure (the course's after every cell, the libraries' at
  exit: comparing ~13,000 entries in full costs 10 ms a cell, by identity 5 ms);
- the interpreter's hooks: trace and profile functions, the import machinery (meta_path,
  path_hooks) and the `sys.modules` entries of those modules, torch's function and dispatch
  mode stacks and global module hooks;
- IPython's execution machinery: input and AST transformers, custom exception handlers,
  event callbacks, and every method of the shell, its compiler and the kernel;
- the names the provided (locked) cells import into the notebook (`checks`, `torch`, `F`, ...);
- this module's own functions and the closures that run the check.

After every cell and at exit it compares and reports each difference once ("torch.allclose
replaced", which the grader shows as a `tampering:` flag), and writes a heartbeat naming
the cell it verified. What the course's own test cells change and put back (a test that
swaps torch.softmax for a trap) leaves nothing to report; a library's own wrapper of a
function it replaces (torch._dynamo's) is accepted. Student code
runs in the same process and could, with effort, switch this off; it cannot do so without
the heartbeats stopping, which the grader, outside the kernel, notices
(`jobs.unverified_cells`). A module imported later is snapshotted when first seen, and any
function found in a watched namespace that was compiled outside the Python installation
and this package (in a notebook cell) is reported even then.
"""
from __future__ import annotations

import ast
import hashlib
import json
import operator
import os
import sys
import types
from collections.abc import Callable, Iterator

from course_utils.grader import sandbox

# Modules whose namespaces the tests call into; course_utils.* is always watched.
WATCHED_MODULES = ("builtins", "math", "operator", "functools", "numpy", "numpy.testing", "torch", "torch.nn",
                   "torch.nn.functional", "torch.nn.init", "torch.nn.modules.module", "torch.testing",
                   "torch.linalg", "torch.special", "torch.autograd", "torch.overrides")
# Classes defined in these packages get their dictionaries watched too.
CLASS_PACKAGES = ("torch", "course_utils")
# Changed at every cell by IPython and ipykernel themselves.
VOLATILE_BUILTINS = {"input", "raw_input", "getpass", "display", "get_ipython"}
Parts = tuple


def _parts(value: object) -> Parts:
    """What makes `value` behave as it does, as objects to compare by identity."""
    if type(value) is types.FunctionType:
        closure = value.__closure__
        cells = () if closure is None else tuple(_contents(c) for c in closure)
        return (value, value.__code__, value.__defaults__, value.__kwdefaults__, *cells)
    if isinstance(value, (staticmethod, classmethod)):
        return (value, *_parts(value.__func__))
    if isinstance(value, property):
        return (value, value.fget, value.fset, value.fdel)
    return (value,)


def _contents(cell: types.CellType) -> object:
    try:
        return cell.cell_contents
    except ValueError:  # an empty cell
        return cell


def _same(a: Parts, b: Parts) -> bool:
    # Identity, element by element, at C speed: `==` would compare tensors (or fail on them).
    return len(a) == len(b) and all(map(operator.is_, a, b))


def _behaves(value: object) -> bool:
    """A value whose replacement changes behaviour: callables, classes, modules, descriptors."""
    return callable(value) or isinstance(value, (types.ModuleType, staticmethod, classmethod, property))


class Watch:
    """Named things (a hook, a list's contents, a dictionary's entries), snapshotted once, compared after.

    A change is anything replaced or removed; an addition counts where it behaves (a callable)
    and, for lists libraries extend themselves (callbacks, import finders), where it was
    compiled in a notebook cell rather than in a file of the Python installation.
    """

    def __init__(self, trusted_roots: tuple[str, ...]) -> None:
        self.values: dict[str, tuple[Callable[[], object], Parts]] = {}
        self.sequences: dict[str, tuple[Callable[[], object], list, bool]] = {}
        self.mappings: dict[str, tuple[Callable[[], dict], Callable[[str, object], bool], dict[str, Parts], bool]] = {}
        self.sizes: dict[str, int] = {}  # how many entries each mapping had, kept or not
        self.reported: set[str] = set()
        self.trusted_roots = trusted_roots

    def value(self, name: str, read: Callable[[], object]) -> None:
        """Watch one value, read again at each check."""
        self.values[name] = (read, _parts(read()))

    def sequence(self, name: str, read: Callable[[], object], libraries_add: bool = False) -> None:
        """Watch a list's (or a dict's values') elements; `libraries_add`: trusted additions are fine."""
        self.sequences[name] = (read, _elements(read()), libraries_add)

    def mapping(self, name: str, read: Callable[[], dict], keep: Callable[[str, object], bool],
                strict: bool = False) -> None:
        """Watch the kept entries of a dictionary (a namespace); a behaving addition is a change too
        where it was written in the notebook, or, if `strict` (a class's methods), wherever from."""
        if name not in self.mappings:
            entries = dict(read())
            before = {k: _parts(v) for k, v in entries.items() if keep(k, v)}
            self.mappings[name] = (read, keep, before, strict)
            self.sizes[name] = len(entries)

    def changes(self, deep: bool = True) -> Iterator[str]:
        """What differs from the snapshot. Not `deep`: torch's and numpy's functions are compared by
        identity only, not by code, defaults and closure (a third of the cost; the course's own
        functions are always compared in full, and the check at exit is deep)."""
        for name, (read, before) in self.values.items():
            if not _same(_parts(_safely(read)), before):
                yield f"{name} replaced"
        for name, (read, before, libraries_add) in self.sequences.items():
            now = _elements(_safely(read))
            if any(not any(x is y for y in now) for x in before):
                yield f"{name} changed (an entry removed or replaced)"
            added = [x for x in now if not any(x is y for y in before)]
            if any(not (libraries_add and self.trusted(x)) for x in added):
                yield f"{name} changed (an entry added)"
        for name, (read, keep, before, strict) in self.mappings.items():
            full = deep or name.startswith("course_utils")
            entries = _safely(read)
            if not isinstance(entries, (dict, types.MappingProxyType)):
                yield f"{name} replaced"
                continue
            for key, old in list(before.items()):
                value = entries.get(key, _MISSING)
                if value is _MISSING:
                    yield f"{name}.{key} removed"
                elif value is not old[0] or (full and len(old) > 1 and not _same(_parts(value), old)):
                    if self.trusted(entries[key]) and getattr(entries[key], "__wrapped__", None) is old[0]:
                        before[key] = _parts(entries[key])  # a library's own wrapper (torch._dynamo's, say)
                    else:
                        yield f"{name}.{key} replaced"
            if len(entries) == self.sizes[name]:  # none added (one removed and one added: the removal is reported)
                continue
            self.sizes[name] = len(entries)
            for key in set(entries) - before.keys():
                value = entries[key]
                if not (_behaves(value) and keep(key, value)) or value is _inherited(read, key):
                    continue
                if strict or not self.trusted(value):
                    yield f"{name}.{key} added"

    def trusted(self, value: object) -> bool:
        """Compiled from a file of the Python installation or this package, not in a notebook cell."""
        value = getattr(value, "__func__", value)
        code = getattr(value, "__code__", None)
        if isinstance(code, types.CodeType):
            return os.path.realpath(code.co_filename).startswith(self.trusted_roots)
        if isinstance(value, type):
            path = getattr(sys.modules.get(value.__module__), "__file__", None)
            return bool(path) and os.path.realpath(path).startswith(self.trusted_roots)
        return True  # builtins and C functions cannot be written in a cell

    def report(self, deep: bool = True) -> None:
        for change in self.changes(deep):
            if change not in self.reported:
                self.reported.add(change)
                sandbox.record("tamper", change)


def _inherited(read: Callable[[], object], key: str) -> object:
    """What a class's attribute `key` resolved to through its bases (a mapping read as `vars(cls)`)."""
    owner = getattr(read, "owner", None)
    for base in getattr(owner, "__mro__", ())[1:]:
        if key in vars(base):
            return vars(base)[key]
    return _MISSING


_MISSING = object()


def _elements(seq: object) -> list:
    if isinstance(seq, dict):
        return list(seq.values())
    try:
        return list(seq or ())
    except TypeError:
        return [seq]


def _safely(read: Callable[[], object]) -> object:
    try:
        return read()
    except Exception:  # noqa: BLE001  (an owner replaced by something that fails to read)
        return None


def _watched_modules() -> Iterator[tuple[str, types.ModuleType]]:
    for name, module in list(sys.modules.items()):
        if isinstance(module, types.ModuleType) and (name in WATCHED_MODULES or name == "course_utils"
                                                     or name.startswith("course_utils.")):
            yield name, module


def _keep_module_entry(module: str) -> Callable[[str, object], bool]:
    if module == "builtins":
        return lambda key, value: not key.startswith("_") and key not in VOLATILE_BUILTINS
    if module.startswith("course_utils.grader"):  # the sandbox's own state changes; its code must not
        return lambda key, value: _behaves(value)
    return lambda key, value: _behaves(value) or not key.startswith("_")


def _classes(module: types.ModuleType) -> Iterator[type]:
    for value in list(vars(module).values()):
        if isinstance(value, type) and value.__module__.split(".")[0] in CLASS_PACKAGES:
            yield value


def watch_class(watch: Watch, klass: type) -> None:
    """A class's methods and descriptors (its plain data, counters and caches among them, may change)."""
    def read() -> types.MappingProxyType:
        return vars(klass)
    read.owner = klass  # type: ignore[attr-defined]  (for _inherited)
    watch.mapping(f"{klass.__module__}.{klass.__qualname__}", read, lambda key, value: _behaves(value), strict=True)


def watch_modules(watch: Watch) -> None:
    """Snapshot the namespaces (and their classes) of watched modules not seen before."""
    for name, module in _watched_modules():
        if f"module {name}" in watch.values:
            continue
        watch.value(f"module {name}", lambda n=name: sys.modules.get(n))
        watch.mapping(name, lambda m=module: vars(m), _keep_module_entry(name))
        for cls in _classes(module):
            for klass in cls.__mro__:
                if klass.__module__.split(".")[0] in CLASS_PACKAGES:
                    watch_class(watch, klass)


def watch_interpreter(watch: Watch) -> None:
    import threading

    for hook in ("gettrace", "getprofile"):
        watch.value(f"sys.{hook[3:]} function", getattr(sys, hook))
        if hasattr(threading, hook):
            watch.value(f"threading.{hook[3:]} function", getattr(threading, hook))
    for name in ("breakpointhook", "modules", "meta_path", "path_hooks"):  # excepthook: ipykernel swaps it
        watch.value(f"sys.{name}", lambda n=name: getattr(sys, n))
    watch.sequence("sys.meta_path contents", lambda: sys.meta_path, libraries_add=True)
    watch.sequence("sys.path_hooks contents", lambda: sys.path_hooks, libraries_add=True)
    try:
        import torch.nn.modules.module as module_hooks
        import torch.overrides
        import torch.utils._python_dispatch as dispatch
    except ImportError:
        return
    for name in sorted(vars(module_hooks)):
        if name.startswith("_global_") and isinstance(getattr(module_hooks, name), dict):
            watch.sequence(f"torch.nn global hooks {name}", lambda n=name: getattr(module_hooks, n))
    watch.value("torch function mode stack", lambda: len(torch.overrides._get_current_function_mode_stack()))
    watch.value("torch dispatch mode stack", lambda: len(dispatch._get_current_dispatch_mode_stack()))


def _methods(obj: object) -> Iterator[type]:
    for klass in type(obj).__mro__:
        if klass is not object and klass.__module__ != "builtins":
            yield klass


def watch_ipython(watch: Watch, shell: object) -> None:
    """IPython's and ipykernel's execution machinery, as it stands before any cell."""
    manager = shell.input_transformer_manager
    for name, read in {
        "IPython input transformers (cleanup)": lambda: shell.input_transformers_cleanup,
        "IPython input transformers (post)": lambda: shell.input_transformers_post,
        "IPython AST transformers": lambda: shell.ast_transformers,
        "IPython cleanup transforms": lambda: manager.cleanup_transforms,
        "IPython line transforms": lambda: manager.line_transforms,
        "IPython token transformers": lambda: manager.token_transformers,
        "IPython custom exception handlers": lambda: shell.custom_exceptions,
        "kernel shell handlers": lambda: shell.kernel.shell_handlers,
    }.items():
        watch.sequence(name, read)
    for event in shell.events.callbacks:
        watch.sequence(f"IPython {event} callbacks", lambda e=event: shell.events.callbacks.get(e),
                       libraries_add=True)
    watch.value("IPython event callbacks", lambda: shell.events.callbacks)
    for label, read in {"IPython shell": lambda: shell.kernel.shell, "IPython compiler": lambda: shell.compile,
                        "IPython input transformer manager": lambda: shell.input_transformer_manager,
                        "IPython events": lambda: shell.events, "kernel": lambda: shell.kernel,
                        "IPython user namespace": lambda: shell.user_ns,
                        "IPython CustomTB": lambda: getattr(shell, "CustomTB", None)}.items():
        watch.value(label, read)
    for obj, label in ((shell, "IPython shell"), (shell.compile, "IPython compiler"),
                       (shell.kernel, "kernel"), (shell.events, "IPython events"),
                       (manager, "IPython input transformer manager")):
        for klass in _methods(obj):
            watch_class(watch, klass)
        # Methods set on the object itself shadow its class's (the object also keeps state of its own).
        watch.mapping(f"{label} (instance)", lambda o=obj: vars(o),
                      lambda key, value, o=obj: _behaves(value) and hasattr(type(o), key), strict=True)


def _provided_sources() -> set[str]:
    """sha256 of the provided (locked) cells' sources, which the grader hands the kernel (JSON)."""
    try:
        return set(json.loads(os.environ.get("COURSE_SANDBOX_CELLS", "") or "[]"))
    except (ValueError, TypeError):
        return set()


def imported_names(source: str) -> set[str]:
    """The names a cell binds with `import` statements at its top level."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    names.add(alias.asname or alias.name.split(".")[0])
    return names


def trusted_roots() -> tuple[str, ...]:
    return tuple(f for f in sandbox.allowed_folders([]) if not f.startswith(("/dev/", "/proc/", "/sys/")))


def start() -> None:
    """Snapshot everything, then check after every cell and at exit (called once, before any cell)."""
    import atexit

    import torch  # noqa: F401  (watched from the start: every notebook imports it)
    from IPython import get_ipython

    shell = get_ipython()
    watch = Watch(trusted_roots())
    provided = _provided_sources()

    def after_cell(result: object) -> None:
        check(deep=False)
        source = getattr(getattr(result, "info", None), "raw_cell", "") or ""
        if hashlib.sha256(source.encode()).hexdigest() in provided:  # what the course's cells import is watched
            for name in imported_names(source):
                if name in shell.user_ns and f"notebook name {name}" not in watch.values:
                    watch.value(f"notebook name {name}", lambda n=name: shell.user_ns.get(n))
        count = getattr(result, "execution_count", None)
        if count is not None:
            sandbox.record("verified", count)

    def check(*_: object, deep: bool = True) -> None:
        watch_modules(watch)
        watch.report(deep)

    if shell is not None:
        shell.events.register("post_run_cell", after_cell)  # before the snapshot, which then holds it
    atexit.register(check)
    watch_modules(watch)
    watch_interpreter(watch)
    if shell is not None:
        watch_ipython(watch, shell)
    for function in (after_cell, check):  # their code and closures: the watch itself
        watch.value(f"integrity check {function.__name__}", lambda f=function: f)
