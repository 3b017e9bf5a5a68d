"""Where each name of a submission is bound, and to what expression: Python's scopes, read from the source.

For the screen's value analysis (`values`), which must know what a name stands for wherever it is
used: `layer` in a method may be a parameter, a local bound to `nn.Linear(...)`, a global of another
cell, `self`. The rules are Python's own: a name bound anywhere in a function is local to all of
it (unless declared global or nonlocal), a class body's names are not seen by its methods, a
comprehension has a scope of its own, `:=` binds in the function around it. Every cell of a
submission shares one module scope, as every cell of a notebook shares one namespace. What is
recorded is each binding's expression (`x = <expr>`, `for x in <expr>`, a parameter's default),
evaluated later; a binding's value is the join of all of them, wherever in the cell they are.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import NamedTuple

# What an expression's value may be. The screen tells apart what a student made from what they did not.
MODULE = "module"        # a module object (torch, checks): `name` is its dotted path
API = "api"              # a function, class or value reached from a module: `name` is its dotted path
OWN = "own"              # a new object the student made (a literal, a call of an allowed constructor or their class)
SELF = "self"            # `self` in a method of the student's class
CODE = "code"            # a function or class the student defined
PARAM = "param"          # a function's parameter (not self): whatever a caller passed
NOTEBOOK = "notebook"    # a name the notebook's own cells bind (provided code, teaching cells)
TEST = "test"            # a name only the test cells bind (their variables and helpers)
UNKNOWN = "unknown"      # anything else the screen cannot follow (what an unknown call returns)


class Atom(NamedTuple):
    """One thing an expression's value may be."""
    kind: str
    name: str = ""                 # the dotted path (MODULE, API) or the name (CODE, PARAM, NOTEBOOK, TEST)
    held: bool = False             # inside a container the student made (a list holding torch.softmax)
    is_class: bool = False         # CODE and NOTEBOOK: a class rather than a function
    node: ast.AST | None = None    # CODE: its definition


UNFOLLOWED = Atom(UNKNOWN)
MADE = Atom(OWN)
A_CLASS = Atom(UNKNOWN, "type()")   # the class of some object (type(x), x.__class__); called with three arguments,
                                    # it makes a new class


@dataclass(eq=False)
class Scope:
    """One Python scope: the module (every cell), a function or lambda, a class body, a comprehension."""
    kind: str                                   # "module", "function", "class", "comprehension"
    parent: Scope | None = None
    name: str = ""                              # the function's or class's name
    node: ast.AST | None = None
    names: set[str] = field(default_factory=set)            # names bound here
    declared_global: set[str] = field(default_factory=set)
    declared_nonlocal: set[str] = field(default_factory=set)

    def function(self) -> Scope:
        """The scope a `:=` binds in: the nearest one that is not a comprehension."""
        scope = self
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        return scope


@dataclass
class Binding:
    """`name` in `scope` is bound to what `expr` gives (in the scope where it is written), as `how` says."""
    scope: Scope
    name: str
    how: str                       # "value", "element" (for x in expr), "rest" (*x = expr), "augmented", "atoms"
    expr: ast.AST | None
    atoms: frozenset[Atom] = frozenset()


# Methods and functions that put their arguments into a container (the receiver, or the first argument).
PUTS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "appendleft", "extendleft",
                  "put", "put_nowait"})
PUTS_INTO_FIRST = frozenset({"heappush", "heappushpop", "heapreplace", "insort", "insort_left", "insort_right"})


@dataclass
class AttributeBinding:
    """`<base>.attr = expr` (or `setattr(base, "attr", expr)`): what the student's objects hold, where
    `base` turns out to be `self` (or a name bound to it)."""
    base: ast.AST
    attr: str
    expr: ast.AST


class Builder(ast.NodeVisitor):
    """Walks a submission's cells, recording each node's scope and every binding."""

    def __init__(self, top: Scope) -> None:
        self.top = top
        self.scope = top
        self.scope_of: dict[ast.AST, Scope] = {}
        self.bindings: list[Binding] = []
        self.attribute_bindings: list[AttributeBinding] = []
        self.item_bindings: list[tuple[ast.AST, ast.AST]] = []  # (container, what is put into it)
        self.attributes: set[str] = set()          # attribute names the student's code sets or defines
        self.functions: dict[ast.AST, Scope] = {}  # a def or lambda node -> its scope
        self.setattrs: list[ast.Call] = []          # setattr calls: the names they give are read later

    def visit(self, node: ast.AST) -> None:
        self.scope_of[node] = self.scope
        super().visit(node)

    # -- binding names

    def bind(self, target: ast.AST, how: str, expr: ast.AST | None) -> None:
        """Record what assigning `expr` to `target` binds (names, self's attributes)."""
        if isinstance(target, ast.Name):
            self._name(target.id, how, expr)
        elif isinstance(target, (ast.Tuple, ast.List)):
            literal = isinstance(expr, (ast.Tuple, ast.List)) and how == "value" \
                and len(expr.elts) == len(target.elts) \
                and not any(isinstance(e, ast.Starred) for e in (*expr.elts, *target.elts))
            for i, element in enumerate(target.elts):
                if literal:
                    self.bind(element, "value", expr.elts[i])  # type: ignore[union-attr]
                elif isinstance(element, ast.Starred):
                    self.bind(element.value, "rest", expr)
                else:
                    self.bind(element, "element" if how in ("value", "element") else how, expr)
        elif isinstance(target, ast.Starred):
            self.bind(target.value, "rest", expr)
        elif isinstance(target, ast.Subscript) and expr is not None:
            self.item_bindings.append((target.value, expr))
        elif isinstance(target, ast.Attribute):
            self.attributes.add(target.attr)
            if expr is not None and how == "value":
                self.attribute_bindings.append(AttributeBinding(target.value, target.attr, expr))

    def _name(self, name: str, how: str, expr: ast.AST | None, atoms: frozenset[Atom] = frozenset(),
              scope: Scope | None = None) -> None:
        scope = scope or self._binding_scope(name)
        scope.names.add(name)
        self.bindings.append(Binding(scope, name, how, expr, atoms))

    def _binding_scope(self, name: str) -> Scope:
        scope = self.scope
        if name in scope.declared_global:
            return self.top
        if name in scope.declared_nonlocal:
            outer = scope.parent
            while outer is not None and (outer.kind == "class" or name not in outer.names) and outer.parent is not None:
                outer = outer.parent
            return outer or self.top
        return scope

    # -- statements that bind

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        for target in node.targets:
            self.bind(target, "value", node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        if node.value is not None:
            self.bind(node.target, "value", node.value)
        elif isinstance(node.target, ast.Name) and self.scope.kind == "class":
            self.attributes.add(node.target.id)  # a dataclass's field

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.generic_visit(node)
        self.bind(node.target, "augmented", node.value)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.generic_visit(node)
        self._name(node.target.id, "value", node.value, scope=self.scope.function())

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.generic_visit(node)
        self.bind(node.target, "element", node.iter)

    visit_AsyncFor = visit_For

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        self.generic_visit(node)
        for item in node.items:
            if item.optional_vars is not None:
                self.bind(item.optional_vars, "value", item.context_expr)

    visit_AsyncWith = visit_With

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self.generic_visit(node)
        if node.name:
            self._name(node.name, "atoms", None, frozenset({MADE}))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            path = alias.name if alias.asname else bound
            self._name(bound, "atoms", None, frozenset({Atom(MODULE, path)}))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name != "*" and node.module and not node.level:
                # Module or not, the allowlist says (values.Analysis reads an API path naming a module as one).
                self._name(alias.asname or alias.name, "atoms", None,
                           frozenset({Atom(API, f"{node.module}.{alias.name}")}))

    def visit_Global(self, node: ast.Global) -> None:
        self.scope.declared_global |= set(node.names)
        self.top.names |= set(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.scope.declared_nonlocal |= set(node.names)

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        self.generic_visit(node)
        if node.name:
            self._name(node.name, "atoms", None, frozenset({UNFOLLOWED}))

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self._name(node.name, "atoms", None, frozenset({UNFOLLOWED}))

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        self.generic_visit(node)
        if node.rest:
            self._name(node.rest, "atoms", None, frozenset({UNFOLLOWED}))

    # -- scopes

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for expr in (*node.decorator_list, *node.args.defaults, *filter(None, node.args.kw_defaults)):
            self.visit(expr)
        self._annotations(node)
        self._name(node.name, "atoms", None, frozenset({Atom(CODE, node.name, node=node)}))
        if self.scope.kind == "class":
            self.attributes.add(node.name)
        self._function(node, node.name, node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for expr in (*node.args.defaults, *filter(None, node.args.kw_defaults)):
            self.visit(expr)
        self._function(node, "<lambda>", [node.body])

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, name: str,
                  body: list[ast.AST]) -> None:
        outer = self.scope
        scope = Scope("function", outer, name, node)
        self.functions[node] = scope
        self.scope = scope
        args = node.args
        positional = [*args.posonlyargs, *args.args]
        decorators = {d.id for d in getattr(node, "decorator_list", []) if isinstance(d, ast.Name)}
        defaults = dict(zip([a.arg for a in positional][len(positional) - len(args.defaults):], args.defaults))
        defaults |= {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
        method = outer.kind == "class" and positional and "staticmethod" not in decorators
        for i, arg in enumerate([*positional, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]):
            if i == 0 and method:  # self, or a class method's class
                atoms = {Atom(CODE, outer.name, is_class=True, node=outer.node)} if "classmethod" in decorators \
                    else {Atom(SELF)}
                self._name(arg.arg, "atoms", None, frozenset(atoms), scope)
            else:
                self._name(arg.arg, "atoms", defaults.get(arg.arg), frozenset({Atom(PARAM, arg.arg)}), scope)
        self.scope_of[node] = outer
        for statement in body:
            self.visit(statement)
        if isinstance(node, ast.Lambda):
            self.bindings.append(Binding(scope, "<return>", "value", node.body))
        self.scope = outer

    def visit_Return(self, node: ast.Return) -> None:
        self.generic_visit(node)
        if node.value is not None:
            self._name("<return>", "value", node.value, scope=self.scope.function())

    def visit_Yield(self, node: ast.Yield | ast.YieldFrom) -> None:
        self.generic_visit(node)
        self._name("<return>", "atoms", None, frozenset({MADE}), scope=self.scope.function())  # a generator

    visit_YieldFrom = visit_Yield

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for expr in (*node.decorator_list, *node.bases, *(k.value for k in node.keywords)):
            self.visit(expr)
        self._name(node.name, "atoms", None, frozenset({Atom(CODE, node.name, is_class=True, node=node)}))
        outer = self.scope
        self.scope = Scope("class", outer, node.name, node)
        for statement in node.body:
            self.visit(statement)
        self.attributes |= self.scope.names
        self.scope = outer

    def _annotations(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        args = node.args
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))):
            if arg.annotation is not None:
                self.visit(arg.annotation)
        if node.returns is not None:
            self.visit(node.returns)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp,
                       elements: list[ast.AST]) -> None:
        outer = self.scope
        self.visit(node.generators[0].iter)  # evaluated where the comprehension is
        self.scope = Scope("comprehension", outer, "<comprehension>", node)
        for i, generator in enumerate(node.generators):
            self.scope_of[generator] = self.scope
            if i:
                self.visit(generator.iter)
            self.bind(generator.target, "element", generator.iter)
            self.visit(generator.target)
            for condition in generator.ifs:
                self.visit(condition)
        for element in elements:
            self.visit(element)
        self.scope = outer

    def visit_ListComp(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> None:
        self._comprehension(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node: ast.DictComp) -> None:
        self._comprehension(node, [node.key, node.value])

    # -- what the student's objects are given

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        func = node.func
        first = node.args[0] if node.args else None
        if isinstance(func, ast.Name) and func.id == "setattr" and len(node.args) == 3:
            self.setattrs.append(node)
        elif isinstance(func, ast.Attribute) and func.attr in ("register_buffer", "register_parameter", "add_module",
                                                               "register_module") \
                and isinstance(first, ast.Constant) and isinstance(first.value, str):
            self.attributes.add(first.value)
            if len(node.args) > 1:
                self.attribute_bindings.append(AttributeBinding(func.value, first.value, node.args[1]))
        elif isinstance(func, ast.Attribute) and func.attr in PUTS:
            self.item_bindings += [(func.value, arg) for arg in (*node.args, *(k.value for k in node.keywords))]
        elif first is not None and getattr(func, "attr", getattr(func, "id", "")) in PUTS_INTO_FIRST:
            self.item_bindings += [(first, arg) for arg in node.args[1:]]
