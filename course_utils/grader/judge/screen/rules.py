"""The allowlist's rules, applied to one cell of a submission: every construct that holds it, with its line.

For the screen (`screen`), which runs these on every cell the student wrote, and for instructors
reading a flag: each finding says what was reached and why it is not what an exercise needs. What
a cell may do, where `values` says what each expression is:

- call what is on the allowlist (`allowlist`), the notebook's and the student's own functions and
  classes, and methods whose names the allowlist, the notebook or the student's classes define;
- reach a module's attribute only where the allowlist holds it (`checks.os`, `torch.utils.benchmark`
  are not), and no dunder attribute but a name, a docstring, a class, `super().__init__`;
- set attributes only on `self` and on what the student made (`layer = nn.Linear(...)`, their
  classes), never on a module, a class they did not write, a parameter, a provided name or what an
  unknown call returns; set items into no module's object;
- use no module, and no class they did not write, as a value (passed, returned, stored, aliased):
  only called, subclassed, tested against (`isinstance`), caught, annotated;
- name attributes only with strings the screen can read (getattr, setattr, a format's fields);
- leave the notebook's provided names, the builtins the tests use and the tests' variables alone;
- define no class that lies to comparisons (a tensor subclass, `__eq__`, `__torch_function__`, a metaclass);
- and, in an exercise's answer, take no shortcut (`shortcuts`).
"""
from __future__ import annotations

import ast
import string
from typing import TYPE_CHECKING

from course_utils.grader.judge.screen import allowlist
from course_utils.grader.judge.screen.context import Context, Finding
from course_utils.grader.judge.screen.definitions import DefinitionRules
from course_utils.grader.judge.screen.literals import constant_prefix
from course_utils.grader.judge.screen.magics import Magic, is_magic
from course_utils.grader.judge.screen.scopes import A_CLASS, API, CODE, MODULE, NOTEBOOK, OWN, PARAM, SELF, TEST, Atom
from course_utils.grader.judge.screen.shortcuts import matches
from course_utils.grader.judge.screen.values import READABLE_DUNDERS, Analysis, Value

if TYPE_CHECKING:
    from collections.abc import Iterable

# Builtins not on the allowlist, and why (any other is "not on the screen's allowlist").
REASONS = {
    "exec": "runs code from a string", "eval": "runs code from a string", "compile": "compiles code from a string",
    "__import__": "imports by name", "open": "opens a file", "globals": "reaches the notebook's namespace",
    "locals": "reaches a namespace", "vars": "reaches an object's namespace", "breakpoint": "starts a debugger",
    "exit": "ends the kernel", "quit": "ends the kernel", "get_ipython": "reaches IPython's machinery",
    "memoryview": "reads raw memory", "__builtins__": "reaches the builtins",
    "help": "imports and runs modules by name", "input": "waits for input",
}
# The interpreter's own records: frames, code objects, tracebacks, generators' and coroutines' insides.
INTERPRETER_ATTRIBUTES = frozenset({
    "f_back", "f_builtins", "f_code", "f_globals", "f_lasti", "f_lineno", "f_locals", "f_trace", "f_trace_lines",
    "f_trace_opcodes", "tb_frame", "tb_lasti", "tb_lineno", "tb_next", "gi_frame", "gi_code", "gi_running",
    "gi_yieldfrom", "gi_suspended", "cr_frame", "cr_code", "cr_await", "cr_running", "cr_origin", "ag_frame",
    "ag_code", "ag_await", "ag_running", "func_globals", "func_code"})
ATTRIBUTE_CALLS = frozenset({"builtins.getattr", "builtins.setattr", "builtins.delattr"})  # hasattr: a bool
NEW_CLASS = "makes a class with type() (what it holds is hidden from the screen)"


def internal(attr: str) -> bool:
    """Whether an attribute name is the interpreter's inside of an object (dunders, frames, code objects)."""
    return (attr.startswith("__") and attr.endswith("__")) or attr in INTERPRETER_ATTRIBUTES or attr.startswith("co_")


class CellRules(DefinitionRules):
    """The findings of one cell (or the code one of its magics runs), appended to `findings`."""

    def __init__(self, analysis: Analysis, ctx: Context, label: str, offset: int, findings: list[Finding],
                 magics: dict[ast.AST, Magic], shortcuts: frozenset[str] = frozenset(),
                 helper: tuple[str, str] = ("", "")) -> None:
        super().__init__(analysis, ctx)
        self.label, self.offset, self.findings, self.magics = label, offset, findings, magics
        self.shortcuts = shortcuts
        # (exercise, helper): a helper of the student's that this exercise's answer calls, where only the
        # exercise's shortcuts are looked for (the helper's own cell reports the rest).
        self.exercise, self.helper = helper
        self.methods = allowlist.method_names() | analysis.attributes | ctx.attributes

    def add(self, node: ast.AST, what: str) -> None:
        if not self.helper:
            self.findings.append(Finding(self.label, self.offset + getattr(node, "lineno", 1), what))

    def shortcut(self, node: ast.AST, written: str) -> None:
        if not self.shortcuts:
            return
        why = (f"a shortcut {self.exercise} (which calls {self.helper}) may not take" if self.helper
               else "a shortcut this exercise may not take")
        self.findings.append(Finding(self.label, self.offset + getattr(node, "lineno", 1), f"uses {written}, {why}"))

    # -- names

    def visit_Name(self, node: ast.Name) -> None:
        name, scope = node.id, self.scope(node)
        if not isinstance(node.ctx, ast.Load):
            self.rebinds(node, name, scope)
            return
        where, _ = self.analysis.lookup(name, scope)
        if where == "ipython":
            reason = REASONS.get(name, "IPython's record of the cells run, the tests' among them")
            self.add(node, f"{'uses' if name in REASONS else 'reads'} {name} ({reason})")
        elif where == "builtin" and not allowlist.builtin(name) and not _readable_dunder(name):
            self.add(node, f"uses {name} ({REASONS.get(name, 'not on the screen allowlist')})")
        elif where == "builtin" and name in ("getattr", "setattr", "delattr", "hasattr", "type") \
                and not self.called(node):
            self.add(node, f"passes {name} around (an attribute access the screen cannot read)")
        elif where == "test" and scope.kind != "module":
            self.add(node, f"{self.function_name(scope)} reads {name}, a variable of the test cells")
        elif where == "unknown" and name.startswith("__") and not _readable_dunder(name):
            self.add(node, f"uses {name}")
        self.reached(node, self.analysis.value(node), name)

    # -- attributes

    def visit_Attribute(self, node: ast.Attribute) -> None:
        attr, base = node.attr, self.analysis.value(node.value)
        if not isinstance(node.ctx, ast.Load):
            self.store(node, base)
        elif internal(attr) and not (attr in READABLE_DUNDERS or (attr == "__init__" and self.called(node))):
            self.add(node, f"reaches .{attr} (the interpreter's inside of an object)")
        else:
            self.attribute(node, base)
            self.reached(node, self.analysis.value(node), ast.unparse(node))
        self.generic_visit(node)

    def attribute(self, node: ast.Attribute, base: Value, called: bool | None = None) -> None:
        """Reading `node` (base.attr): into a module only what the allowlist holds; on values only known methods."""
        if self.blocked(node.value):
            return  # what it is read from is already a finding
        called = self.called(node) if called is None else called
        denied = self.denied(node, base, called)
        if denied:
            self.add(node, f"reaches {_named(ast.unparse(node), denied)} (not on the screen allowlist)")
            return
        attr = node.attr
        values = [a for a in unheld(base) if a.kind not in (MODULE, API)]
        if called and values:
            self.method_call(node, values)
        if self.shortcuts and attr in self.shortcuts and values and not (
                all(a.kind in (SELF, CODE) for a in values) and attr in self.analysis.attributes):
            self.shortcut(node, f".{attr}")

    def denied(self, node: ast.Attribute, base: Value, called: bool | None = None) -> str:
        """The dotted path `node` reaches in a module that the allowlist does not hold ("" when none)."""
        attr, called = node.attr, self.called(node) if called is None else called
        for atom in unheld(base):
            if atom.kind in (MODULE, API):
                path = f"{atom.name}.{attr}"
                if allowlist.kind(path) or self.settable_item(node, path) or (
                        attr in READABLE_DUNDERS if atom.kind == MODULE
                        else self.api_attribute(allowlist.kind(atom.name), attr, called)):
                    continue
                return path
        return ""

    def blocked(self, node: ast.AST) -> bool:
        """Whether `node` is, or is read from, something already found (an attribute off the allowlist, a
        builtin off it): what is done with it next is not reported again."""
        while True:
            if isinstance(node, ast.Attribute):
                if internal(node.attr) or self.denied(node, self.analysis.value(node.value)):
                    return True
                node = node.value
            elif isinstance(node, (ast.Subscript, ast.Call)):
                node = node.value if isinstance(node, ast.Subscript) else node.func
            elif isinstance(node, ast.Name):
                where, _ = self.analysis.lookup(node.id, self.scope(node))
                off_list = where in ("local", "student") and any(  # its import was found
                    a.kind == MODULE and allowlist.kind(a.name) != allowlist.MODULE for a in self.analysis.value(node))
                return off_list or where == "ipython" or (where == "builtin" and not allowlist.builtin(node.id))
            else:
                return False

    @staticmethod
    def api_attribute(of: str | None, attr: str, called: bool) -> bool:
        """Whether an attribute of a function, class or value a module holds may be reached: its public
        attributes read (SDPBackend.MATH), its methods called where the allowlist knows their name
        (dict.fromkeys, datetime.now); not what its module imports, which is the module's, not its own."""
        if attr.startswith("_"):
            return attr in READABLE_DUNDERS
        return of != allowlist.MODULE and (not called or attr in allowlist.method_names())

    def method_call(self, node: ast.Attribute, values: list[Atom]) -> None:
        attr, call = node.attr, self.parents[node]  # the call (of getattr's result: the call around getattr)
        if attr in ("format", "format_map"):
            self.format_call(node)
        elif attr not in self.methods:
            self.add(node, f"calls .{attr} (a method the screen allowlist does not know)")
        elif attr in allowlist.CONSTRAINED_METHODS:
            self.constrained(call, f".{attr}", allowlist.CONSTRAINED_METHODS[attr])  # type: ignore[arg-type]

    def format_call(self, node: ast.Attribute) -> None:
        """str.format reaches attributes by the names in its fields ("{0.__globals__}"): they must be readable."""
        templates = self.analysis.strings(node.value, node)
        if templates is None:
            self.add(node, "formats with a template the screen cannot read (its fields reach attributes by name)")
            return
        for template in templates:
            fields = _format_fields(template)
            if fields is None:
                self.add(node, "formats with a template the screen cannot read (its fields reach attributes by name)")
                return
            for attr in fields:
                if internal(attr):
                    self.add(node, f"formats .{attr} (the interpreter's inside of an object)")
                if attr in self.shortcuts:
                    self.shortcut(node, f".{attr}")

    def store(self, node: ast.Attribute, base: Value) -> None:
        """A write to `node` (base.attr = ..., del base.attr): only into self and what the student made."""
        written, attr = ast.unparse(node), node.attr
        if self.blocked(node.value):
            return
        if internal(attr):
            self.add(node, f"writes to {written} (the interpreter's inside of an object)")
            return
        why = self.not_own(base, attr)
        if why:
            self.add(node, f"writes to {written} ({why})")

    def not_own(self, base: Value, attr: str) -> str:
        """Why an attribute of `base` may not be written ("" when base is self or the student's own)."""
        for atom in sorted(unheld(base), key=_worst):
            path = f"{atom.name}.{attr}"
            if atom.kind == MODULE and path not in allowlist.SETTABLE_ATTRIBUTES:
                return f"part of the module {atom.name}"
            if atom.kind == API and path not in allowlist.SETTABLE_ATTRIBUTES:
                return f"part of {atom.name}, which the student did not make"
            if atom.kind == PARAM:
                return f"{atom.name} is a parameter: the screen cannot tell what a caller passes"
            if atom.kind == NOTEBOOK:
                return f"the notebook {'provides' if atom.name in self.ctx.provided else 'made'} {atom.name}"
            if atom.kind == TEST:
                return f"{atom.name} is a variable of the test cells"
            if atom.kind not in (OWN, SELF, CODE, MODULE, API):
                return "the screen cannot follow what it belongs to: an unknown call's result, a computed attribute"
        return ""

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if not isinstance(node.ctx, ast.Load):
            for atom in unheld(self.analysis.value(node.value)):
                provided = atom.kind == NOTEBOOK and atom.name in self.ctx.provided
                if (atom.kind in (MODULE, API, TEST) or provided) and not self.settable_item(node.value, atom.name):
                    self.add(node, f"writes into {ast.unparse(node.value)} "
                                   f"({'the notebook provides it' if provided else 'which the student did not make'})")
                    break
        self.generic_visit(node)

    def settable_item(self, node: ast.AST, path: str) -> bool:
        """`plt.rcParams["figure.figsize"] = ...`: a setting of how plots look, by a key the screen can read."""
        prefixes = allowlist.SETTABLE_ITEMS.get(allowlist.resolve(path))
        subscript = node if isinstance(node, ast.Subscript) else self.parents.get(node)
        if not prefixes or not isinstance(subscript, ast.Subscript):
            return False
        keys = self.analysis.strings(subscript.slice, subscript)
        return keys is not None and all(k.startswith(prefixes) for k in keys)

    # -- calls

    def visit_Call(self, node: ast.Call) -> None:
        if is_magic(node):
            found = self.magics.get(node)
            if found is not None and found.problem:
                self.add(node, found.problem)
            return  # its code was read as code of its own (screen.py); the rest is IPython's
        for atom in unheld(self.analysis.value(node.func)):
            if len(node.args) == 3 and (atom == A_CLASS or atom == Atom(API, "builtins.type")):
                self.add(node, NEW_CLASS)  # type(x)(name, bases, namespace), type(name, bases, namespace)
            if atom.kind != API:
                continue
            if atom.name in ATTRIBUTE_CALLS:
                self.attribute_call(node, atom.name)
            elif atom.name in ("operator.attrgetter", "operator.methodcaller"):
                self.named_attributes(node, atom.name.split(".")[1])
            elif atom.name in allowlist.CONSTRAINED:
                self.constrained(node, atom.name, allowlist.CONSTRAINED[atom.name])
        self.generic_visit(node)

    def constrained(self, node: ast.Call, name: str, allowed: tuple[int, frozenset[str]]) -> None:
        """A call that may run code or start processes through some arguments: only the others given."""
        positional, keywords = allowed
        extra = [k.arg or "**" for k in node.keywords if k.arg not in keywords]
        if len(node.args) > positional or any(isinstance(a, ast.Starred) for a in node.args) or extra:
            given = ", ".join(extra) or "more arguments"
            self.add(node, f"calls {name} with {given} (its other arguments choose compilers, commands or processes)")

    def attribute_call(self, node: ast.Call, kind: str) -> None:
        """getattr, setattr, delattr: each name the screen can read, checked as if written out."""
        if len(node.args) < 2:
            return
        what = kind.split(".")[1]
        target, names = node.args[0], self.analysis.strings(node.args[1], node)
        base = self.analysis.value(target)
        if names is None:
            if not self.readable_prefix(node.args[1], base):
                self.add(node, f"{what} with a name the screen cannot read")
            return
        for attr in names:
            if internal(attr) and not (what == "getattr" and attr in READABLE_DUNDERS):
                self.add(node, f"{what} of {attr} (the interpreter's inside of an object)")
                continue
            if what in ("setattr", "delattr"):
                why = self.not_own(base, attr)
                if why:
                    self.add(node, f"{what} of {ast.unparse(target)}.{attr} ({why})")
            else:  # getattr(torch, "nn") is torch.nn, getattr(x, "f")(y) is x.f(y): judged as if so written
                outer = self.parents.get(node)
                written = ast.Attribute(value=target, attr=attr, ctx=ast.Load(), lineno=node.lineno)
                self.parents[written] = outer if self.called(node) else node  # type: ignore[assignment]
                self.attribute(written, base, called=self.called(node))
        if what == "getattr":
            self.reached(node, self.analysis.value(node), ast.unparse(node))

    @staticmethod
    def readable_prefix(name: ast.AST, base: Value) -> bool:
        """getattr(self, f"layer_{i}"): a computed name on the student's own object that starts with letters
        no interpreter attribute starts with (a dunder, a frame's) reaches only the object's own attributes."""
        prefix = constant_prefix(name)
        own = base and all(a.kind in (OWN, SELF) for a in unheld(base))
        return bool(own) and prefix[:1].isalpha() and not any(
            n.startswith(prefix) or prefix.startswith(n) for n in (*INTERPRETER_ATTRIBUTES, "co_"))

    def named_attributes(self, node: ast.Call, kind: str) -> None:
        for arg in node.args[:1 if kind == "methodcaller" else None]:
            names = self.analysis.strings(arg, node)
            if names is None:
                self.add(node, f"{kind} with a name the screen cannot read")
                continue
            for attr in (part for dotted in names for part in dotted.split(".")):
                if internal(attr):
                    self.add(node, f"{kind} of {attr} (the interpreter's inside of an object)")
                if attr in self.shortcuts:
                    self.shortcut(node, f".{attr}")

    # -- what a value is used as

    def reached(self, node: ast.AST, value: Value, written: str) -> None:
        """A name, attribute or getattr: a module or a class as a value, and the exercise's shortcuts."""
        parent = self.parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.value is node:
            return  # the attribute around it is judged as a whole
        if self.flows(node):
            for atom in unheld(value):
                if atom.kind == MODULE:
                    self.add(node, f"uses the module {_named(written, atom.name)} as a value "
                                   "(the screen cannot follow what is done to it)")
                    break
                if atom.kind == API and allowlist.kind(atom.name) == allowlist.CLASS:
                    self.add(node, f"uses the class {_named(written, atom.name)} as a value "
                                   "(only the student's own classes may be handed around)")
                    break
        for atom in value:
            if atom.kind in (MODULE, API) and matches(atom.name, self.shortcuts):
                self.shortcut(node, _named(written, atom.name))
                break
            reached = [p for p in self.ctx.reaches.get(atom.name, ()) if matches(p, self.shortcuts)] \
                if atom.kind == NOTEBOOK else []
            if reached:  # a function of the notebook's own that takes the shortcut
                self.shortcut(node, f"{written} (which reaches {max(reached, key=len)})")
                break


def unheld(value: Iterable[Atom]) -> list[Atom]:
    """The atoms of a value itself (not what a container of it holds)."""
    return [a for a in value if not a.held]


def _named(written: str, path: str) -> str:
    return written if written == path else f"{written} ({path})"


def _worst(atom: Atom) -> int:
    order = (MODULE, API, PARAM, NOTEBOOK, TEST)
    return order.index(atom.kind) if atom.kind in order else len(order)


def _readable_dunder(name: str) -> bool:
    return name in ("__name__", "__doc__", "__debug__")


def _format_fields(template: str) -> list[str] | None:
    """The attribute names the fields of a format string reach ("{0.weight[1]}": weight), None if malformed."""
    found = []
    try:
        for _, field, spec, _ in string.Formatter().parse(template):
            if field:
                rest = field.replace("[", ".[")
                found += [p for p in rest.split(".")[1:] if p and not p.startswith("[")]
            if spec and "{" in spec:
                nested = _format_fields(spec)
                if nested is None:
                    return None
                found += nested
    except ValueError:
        return None
    return found
