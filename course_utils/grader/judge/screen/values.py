"""What each expression of a submission may be: a module, an allowed function or class, something the student made.

For the screen's rules (`rules`), which judge what a student's code does to a thing by what the
thing is, not by the name it is written with. `T.cpu = f` is fine when `T` is an `nn.Linear` the
student made, and a finding when `T` is a parameter (the caller may pass `torch.Tensor`), a module,
or what an unknown call returns; `f(x)` with `f = trusted.softmax` calls torch's softmax. Each
expression gets the set of things (`scopes.Atom`) its value may be, from the bindings `scopes`
records, joined over the whole submission until nothing changes: a name's value is everything it
is ever bound to, in any cell, so that no order of running the cells escapes it; what a container
holds (a literal's elements, `d[k] = v`, `lst.append(v)`) and what the student's objects hold
(`self.x = v`, `box.x = v`, by attribute name) come back out of them. A module reached
through an attribute is looked up on the allowlist (`checks.os` is not on it, whatever `checks` is
called); what is not on it is followed no further (the rules report reaching it).
"""
from __future__ import annotations

import ast
import builtins
import re
from typing import TYPE_CHECKING

from course_utils.grader.judge.screen import allowlist
from course_utils.grader.judge.screen.literals import Strings
from course_utils.grader.judge.screen.scopes import (
    A_CLASS,
    API,
    CODE,
    MADE,
    MODULE,
    NOTEBOOK,
    OWN,
    SELF,
    TEST,
    UNFOLLOWED,
    Atom,
    Binding,
    Builder,
    Scope,
    AttributeBinding,
)

if TYPE_CHECKING:
    from course_utils.grader.judge.screen.context import Context

Value = frozenset[Atom]
EMPTY: Value = frozenset()
MADE_BY_STUDENT = frozenset({OWN, SELF, CODE})   # the kinds of what the student made, whose attributes are theirs
# What IPython puts in a notebook's namespace besides the builtins: its record of the cells run (the
# tests' among them) and its machinery.
IPYTHON_NAMES = re.compile(r"^(In|Out|_ih|_oh|_dh|_i|_ii|_iii|_i\d+|_\d+|_|__|___|get_ipython|exit|quit)$")
BUILTIN_NAMES = frozenset(dir(builtins)) | {"display"}
# Dunder attributes that only say what a thing is called or documents, and what class it is of.
MAX_DEPTH = 12   # parts of a dotted path the screen follows
ROUNDS = 50      # of settling values: far more than any notebook's chains of names need
READABLE_DUNDERS = frozenset({"__name__", "__qualname__", "__doc__", "__module__", "__version__", "__class__"})


class Analysis:
    """The values of every expression of a submission's cells (their trees, IPython's rewrite of them)."""

    def __init__(self, trees: list[ast.Module], ctx: Context) -> None:
        self.ctx = ctx
        self.top = Scope("module")
        builder = Builder(self.top)
        for tree in trees:
            builder.visit(tree)
        self.scope_of = builder.scope_of
        self.functions = builder.functions
        self.bindings = builder.bindings
        self.attribute_bindings = builder.attribute_bindings
        self.attributes = builder.attributes
        self.parents = {child: node for tree in trees for node in ast.walk(tree)
                        for child in ast.iter_child_nodes(node)}
        self._strings = Strings(self.parents, self._module_values(builder.bindings), self._call_sites())
        for call in builder.setattrs:  # the attributes setattr gives (getattr and hasattr only read them)
            names = self.strings(call.args[1], call) or []
            self.attributes |= set(names)
            self.attribute_bindings += [AttributeBinding(call.args[0], name, call.args[2]) for name in names]
        self.values: dict[tuple[Scope, str], Value] = {}
        self.object_attrs: dict[str, Value] = {}   # what the student's objects hold, by attribute name
        self.item_bindings = builder.item_bindings
        self.settled = False
        self._memo: dict[ast.AST, Value] = {}
        self._settle()

    # -- names

    def lookup(self, name: str, scope: Scope) -> tuple[str, Scope | None]:
        """Where `name`, read in `scope`, is bound: "local" (a function's), "student" (a global of the
        student's cells), "notebook", "test", "ipython", "builtin" or "unknown"."""
        current: Scope | None = scope
        while current is not None and current.kind != "module":
            if name in current.declared_global:
                break
            if (current.kind != "class" or current is scope) and name in current.names \
                    and name not in current.declared_nonlocal:
                return "local", current
            current = current.parent
        if name in self.top.names:
            return "student", self.top
        if name in self.ctx.imports or name in self.ctx.notebook:
            return "notebook", None
        if name in self.ctx.test_names:
            return "test", None
        if IPYTHON_NAMES.match(name):
            return "ipython", None
        if name in BUILTIN_NAMES:
            return "builtin", None
        return "unknown", None

    def name(self, name: str, scope: Scope) -> Value:
        """What the name `name`, read in `scope`, may be."""
        where, bound = self.lookup(name, scope)
        if where in ("local", "student"):
            found = self.values.get((bound, name), EMPTY)  # type: ignore[arg-type]
            if where == "student" and name in self.ctx.provided:
                found |= self.notebook_name(name)
            return found or (frozenset({UNFOLLOWED}) if self.settled else EMPTY)
        if where == "notebook":
            return self.notebook_name(name)
        if where == "test":
            return frozenset({Atom(TEST, name)})
        if where == "builtin" and allowlist.builtin(name):
            return frozenset({Atom(API, f"builtins.{name}")})
        if where == "unknown":
            return EMPTY  # bound nowhere the notebook could bind it: a NameError when it runs, nothing more
        return frozenset({UNFOLLOWED})

    def notebook_name(self, name: str) -> Value:
        """What a name the notebook's own cells bind is: an import, or the notebook's class, function or value."""
        if name in self.ctx.imports:
            path = self.ctx.imports[name]
            return frozenset({Atom(MODULE, allowlist.resolve(path)) if name in self.ctx.modules else self.path(path)})
        if name in self.ctx.notebook:
            return frozenset({Atom(NOTEBOOK, name, is_class=self.ctx.notebook[name] == allowlist.CLASS)})
        return EMPTY

    def path(self, path: str) -> Atom:
        """The atom of an imported dotted path: a module where the allowlist says it is one."""
        resolved = allowlist.resolve(path)
        return Atom(MODULE if allowlist.kind(resolved) == allowlist.MODULE else API, resolved)

    def strings(self, node: ast.AST, at: ast.AST) -> list[str] | None:
        """Every string `node` can be (an attribute name for getattr, setattr, a format), or None."""
        return self._strings.of(node, at)

    # -- expressions

    def value(self, node: ast.AST) -> Value:
        """What the expression `node` may be."""
        if self.settled and node in self._memo:
            return self._memo[node]
        found = self._value(node)
        if self.settled:
            self._memo[node] = found
        return found

    def _value(self, node: ast.AST) -> Value:
        if isinstance(node, (ast.Constant, ast.JoinedStr, ast.FormattedValue, ast.Slice, ast.BinOp, ast.UnaryOp,
                             ast.Compare)):
            return frozenset({MADE})
        if isinstance(node, ast.Name):
            return self.name(node.id, self.scope_of.get(node, self.top))
        if isinstance(node, ast.Attribute):
            return self.attribute(self.value(node.value), node.attr)
        if isinstance(node, ast.Subscript):
            return elements(self.value(node.value))
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return frozenset({MADE}) | held(*(self.value(e) for e in node.elts))
        if isinstance(node, ast.Dict):
            return frozenset({MADE}) | held(*(self.value(e) for e in (*node.keys, *node.values) if e is not None))
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return frozenset({MADE}) | held(self.value(node.elt))
        if isinstance(node, ast.DictComp):
            return frozenset({MADE}) | held(self.value(node.key), self.value(node.value))
        if isinstance(node, ast.BoolOp):
            return frozenset().union(*(self.value(v) for v in node.values))
        if isinstance(node, ast.IfExp):
            return self.value(node.body) | self.value(node.orelse)
        if isinstance(node, (ast.NamedExpr, ast.Starred, ast.Await)):
            return self.value(node.value)
        if isinstance(node, ast.Lambda):
            return frozenset({Atom(CODE, "<lambda>", node=node)})
        return frozenset({UNFOLLOWED})

    def attribute(self, base: Value, attr: str) -> Value:
        """What `<base>.attr` may be."""
        found = set()
        for atom in base:
            if atom.held:
                continue
            if attr == "__class__":
                found.add(A_CLASS)
            elif atom.kind in (MODULE, API):
                path = f"{atom.name}.{attr}"
                what = allowlist.kind(path)
                if path.count(".") >= MAX_DEPTH:  # x = x.real in a loop: the values stay finitely many
                    found.add(UNFOLLOWED)
                elif what == allowlist.MODULE:
                    found.add(Atom(MODULE, allowlist.resolve(path)))
                elif what or attr in READABLE_DUNDERS or (atom.kind == API and not attr.startswith("_")):
                    found.add(Atom(API, allowlist.resolve(path)))
                else:
                    found.add(UNFOLLOWED)
            elif atom.kind in MADE_BY_STUDENT:
                found |= self.object_attrs.get(attr) or {MADE}
            else:  # what a parameter, the notebook, the tests or an unknown call hold is theirs too
                found.add(atom._replace(is_class=False, node=None))
        return frozenset(found)

    def call(self, node: ast.Call) -> Value:
        """What the call `node` may return."""
        found: set[Atom] = set()
        for atom in self.value(node.func):
            if atom.held:
                continue
            if atom.kind == API:
                found |= self._api_call(atom.name, node)
            elif atom.kind == CODE and not atom.is_class and atom.node in self.functions:
                returns = self.values.get((self.functions[atom.node], "<return>"), EMPTY)
                found |= returns or ({MADE} if self.settled else EMPTY)
            elif atom.kind in (OWN, SELF) or (atom.kind in (CODE, NOTEBOOK) and atom.is_class):
                found.add(MADE)  # a module of the student's called, or a class instantiated: a new object
            else:
                found.add(A_CLASS if atom == A_CLASS and len(node.args) == 3 else UNFOLLOWED)  # a class made
        if isinstance(node.func, ast.Attribute):  # a container's method gives back what it holds
            receiver = self.value(node.func.value)
            if any(a.held for a in receiver):
                found |= elements(receiver)
        return frozenset(found)

    def _api_call(self, path: str, node: ast.Call) -> Value:
        args = [*node.args, *(k.value for k in node.keywords)]
        values = [self.value(a) for a in args]
        if path == "builtins.type":
            return frozenset({A_CLASS})
        if path == "builtins.super":
            return frozenset({Atom(SELF)})
        if path == "builtins.getattr" and len(node.args) >= 2:
            names = self.strings(node.args[1], node)
            if names is None:
                return frozenset({UNFOLLOWED})
            base = self.value(node.args[0])
            found = frozenset().union(*(self.attribute(base, n) for n in names))
            return found | (self.value(node.args[2]) if len(node.args) > 2 else EMPTY)
        if path in allowlist.MAKES_CALLABLES:
            return frozenset({UNFOLLOWED})
        if path in allowlist.CONTAINERS or path.startswith(allowlist.CONTAINER_PACKAGES):
            return frozenset({MADE}) | held(*(elements(v) for v in values))
        if path in allowlist.PICKS:
            return frozenset().union(*(elements(v) | {a for a in v if not a.held} for v in values))
        return frozenset({MADE})

    # -- settling

    def _settle(self) -> None:
        # Values only grow, over finitely many atoms (paths are at most MAX_DEPTH long): this ends. A chain
        # of names bound in the reverse of their order takes a round per name; past the last round, what
        # still changed can be anything.
        for _ in range(ROUNDS):
            changed = set()
            for binding in self.bindings:
                key = (binding.scope, binding.name)
                new, old = self._bound(binding), self.values.get(key, EMPTY)
                if not new <= old:
                    self.values[key] = old | new
                    changed.add(key)
            for bound in self.attribute_bindings:  # what the student's objects hold (self, whatever its name)
                if any(a.kind in MADE_BY_STUDENT and not a.held for a in self.value(bound.base)):
                    changed |= self._hold_attribute(bound.attr, self.value(bound.expr))
            for container, item in self.item_bindings:  # d[k] = v, lst.append(v): what a container holds
                changed |= self._hold(container, held(self.value(item)))
            if not changed:
                break
        else:
            for scope, name in changed:
                if scope is None:
                    self.object_attrs[name] |= {UNFOLLOWED}
                else:
                    self.values[scope, name] |= {UNFOLLOWED}
        self.settled = True

    def _hold_attribute(self, attr: str, value: Value) -> set[tuple[Scope | None, str]]:
        old = self.object_attrs.get(attr, EMPTY)
        if value <= old:
            return set()
        self.object_attrs[attr] = old | value
        return {(None, attr)}

    def _hold(self, container: ast.AST, value: Value) -> set[tuple[Scope | None, str]]:
        """`value` put into `container` (a name, an attribute of the student's object, an item of either)."""
        if isinstance(container, ast.Subscript):  # d[a][b] = v: d holds what d[a] holds
            return self._hold(container.value, held(value))
        if isinstance(container, ast.Attribute):
            if any(a.kind in MADE_BY_STUDENT and not a.held for a in self.value(container.value)):
                return self._hold_attribute(container.attr, value)
            return set()
        if isinstance(container, ast.Name):
            where, scope = self.lookup(container.id, self.scope_of.get(container, self.top))
            key = (scope, container.id)
            if where in ("local", "student") and not value <= self.values.get(key, EMPTY):  # type: ignore[operator]
                self.values[key] = self.values.get(key, EMPTY) | value  # type: ignore[index]
                return {key}  # type: ignore[return-value]
        return set()

    def _bound(self, binding: Binding) -> Value:
        if binding.how == "atoms":
            atoms = frozenset(self.path(a.name) if a.kind == API else a for a in binding.atoms)
            return atoms | (self.value(binding.expr) if binding.expr is not None else EMPTY)
        found = self.value(binding.expr)  # type: ignore[arg-type]
        if binding.how == "element":
            return elements(found)
        if binding.how in ("rest", "augmented"):
            return frozenset({MADE}) | held(elements(found) if binding.how == "rest" else found)
        return found

    def _call_sites(self) -> dict[str, list[ast.Call] | None]:
        """The calls of each name, None for a name also used otherwise (passed, returned: its callers unknown)."""
        found: dict[str, list[ast.Call] | None] = {}
        for node, parent in self.parents.items():
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                calls = found.setdefault(node.id, [])
                if isinstance(parent, ast.Call) and parent.func is node and calls is not None:
                    calls.append(parent)
                else:
                    found[node.id] = None
        return found

    @staticmethod
    def _module_values(bindings: list[Binding]) -> dict[str, list[ast.AST] | None]:
        """What each name of the module scope is assigned (None for a name bound otherwise too)."""
        found: dict[str, list[ast.AST] | None] = {}
        for binding in bindings:
            if binding.scope.kind != "module":
                continue
            known = found.setdefault(binding.name, [])
            if binding.how != "value" or known is None:
                found[binding.name] = None
            else:
                known.append(binding.expr)  # type: ignore[arg-type]
        return found


def held(*values: Value) -> Value:
    """What a container made of these values holds."""
    return frozenset(a._replace(held=True) for value in values for a in value)


def elements(value: Value) -> Value:
    """What an element of `value` (an item, what iterating it gives) may be."""
    found = set()
    for atom in value:
        if atom.held:
            found.add(atom._replace(held=False))
        elif atom.kind in (OWN, SELF, CODE):
            found.add(MADE)
        elif atom.kind == MODULE:
            found.add(UNFOLLOWED)
        else:
            found.add(atom._replace(is_class=False, node=None))
    return frozenset(found)
