"""The allowlist's rules for what a cell defines and imports, and where a value goes.

For the screen's cell rules (`rules.CellRules` builds on these): imports only of modules and names on
the allowlist; classes that cannot lie to the tests' comparisons (no tensor subclass, no metaclass, no
dunder methods beyond the ordinary ones: `__eq__`, `__bool__`, `__torch_function__` change what a
test sees); no rebinding of what the notebook provides or of the builtins the tests call (a cell's
`isinstance = lambda *a: True` would pass every check that uses it); no `global` of the tests'
names. It also says where an expression's value goes (`flows`): a module or a class passed,
returned, stored or aliased can be changed by code the screen cannot follow; one that is only
called, subclassed, caught, compared or annotated cannot.
"""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from course_utils.grader.judge.screen import allowlist
from course_utils.grader.judge.screen.scopes import API, MODULE, PARAM, TEST, UNKNOWN, Scope
from course_utils.grader.judge.screen.shortcuts import matches

if TYPE_CHECKING:
    from course_utils.grader.judge.screen.context import Context
    from course_utils.grader.judge.screen.values import Analysis

# Methods a student's class may define; any other dunder (__eq__, __bool__, __getattr__, __del__,
# __torch_function__, __instancecheck__, ...) changes how the tests see or treat the object.
METHODS = frozenset({"__init__", "__repr__", "__str__", "__len__", "__iter__", "__next__", "__getitem__",
                     "__setitem__", "__contains__", "__call__", "__enter__", "__exit__", "__post_init__", "__lt__"})
TENSOR_CLASSES = frozenset({"torch.Tensor", "torch.nn.Parameter", "torch.nn.Buffer", "torch.nn.UninitializedParameter",
                            "torch.nn.UninitializedBuffer"})


class DefinitionRules(ast.NodeVisitor):
    """Imports, definitions and where values go, for one cell; `add` and `shortcut` report (rules.CellRules)."""

    shortcuts: frozenset[str] = frozenset()

    def __init__(self, analysis: Analysis, ctx: Context) -> None:
        self.analysis, self.ctx = analysis, ctx
        self.parents = analysis.parents

    def add(self, node: ast.AST, what: str) -> None:
        raise NotImplementedError

    def shortcut(self, node: ast.AST, written: str) -> None:
        raise NotImplementedError

    # -- where a node is

    def scope(self, node: ast.AST) -> Scope:
        return self.analysis.scope_of.get(node, self.analysis.top)

    def called(self, node: ast.AST) -> bool:
        parent = self.parents.get(node)
        return isinstance(parent, ast.Call) and parent.func is node

    @staticmethod
    def function_name(scope: Scope) -> str:
        while scope.kind != "function" and scope.parent is not None:
            scope = scope.parent
        return scope.name or "the cell"

    def flows(self, node: ast.AST) -> bool:
        """Whether the value of `node` goes somewhere (passed, returned, stored, aliased, in a container)
        rather than being called, read from, subclassed, caught, compared, shown or annotated."""
        parent = self.parents.get(node)
        if parent is None or isinstance(parent, (ast.Compare, ast.Expr, ast.Raise)):
            return False
        if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is node:
            return False
        if isinstance(parent, ast.Call) and (parent.func is node or self._type_test(parent, node) or (
                isinstance(parent.func, ast.Name) and parent.func.id in ("getattr", "hasattr", "setattr", "delattr")
                and parent.args and parent.args[0] is node)):
            return False
        if isinstance(parent, ast.Tuple) and isinstance(self.parents.get(parent), ast.Call) \
                and self._type_test(self.parents[parent], parent):
            return False
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node in parent.decorator_list:
            return False
        if isinstance(parent, ast.ClassDef) and node in parent.bases:
            return False
        child = node
        while isinstance(parent, ast.expr):  # an annotation or an except clause, however deep in it
            child, parent = parent, self.parents.get(parent)
        return not ((isinstance(parent, ast.arg) and parent.annotation is child)
                    or (isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and parent.returns is child)
                    or (isinstance(parent, ast.AnnAssign) and parent.annotation is child)
                    or (isinstance(parent, ast.ExceptHandler) and parent.type is child))

    @staticmethod
    def _type_test(call: ast.Call, arg: ast.AST) -> bool:
        return isinstance(call.func, ast.Name) and call.func.id in ("isinstance", "issubclass") \
            and len(call.args) >= 2 and call.args[1] is arg

    # -- names the notebook and the tests rely on

    def rebinds(self, node: ast.AST, name: str, scope: Scope) -> None:
        """A binding of `name` in `scope` (an assignment, def, class, import, del) over the notebook's own."""
        declared = scope.kind == "function" and name in scope.declared_global
        if scope.kind != "module" and not declared:
            return
        if name in self.ctx.provided:
            self.add(node, f"rebinds {name}, which the notebook provides")
        elif name in self.ctx.test_callables:
            self.add(node, f"rebinds {name}, which the test cells call")

    def visit_Global(self, node: ast.Global) -> None:
        for name in node.names:
            if name in self.ctx.test_names or name in self.ctx.provided:
                self.add(node, f"declares global {name} (a name the notebook's locked cells use)")

    # -- imports

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if allowlist.kind(alias.name) != allowlist.MODULE:
                self.add(node, f"imports {alias.name} (not a module the exercises use)")
            bound = alias.asname or alias.name.split(".")[0]
            self._imports_over(node, bound, alias.name if alias.asname else bound)
            self._shortcut_import(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level:
            self.add(node, f"imports from a relative module ({'.' * node.level}{module})")
            return
        if allowlist.kind(module) != allowlist.MODULE:
            self.add(node, f"imports {module} (not a module the exercises use)")
        for alias in node.names:
            path = f"{module}.{alias.name}"
            if alias.name == "*":
                self.add(node, f"imports * from {module} (every name, over the notebook's own)")
                continue
            if allowlist.kind(module) == allowlist.MODULE and allowlist.kind(path) is None:
                self.add(node, f"imports {path} (not on the screen allowlist)")
            self._imports_over(node, alias.asname or alias.name, path)
            self._shortcut_import(node, path)

    def _imports_over(self, node: ast.AST, bound: str, path: str) -> None:
        """An import that binds a provided name: fine if it binds the same thing (import torch, again)."""
        if self.ctx.imports.get(bound) != path:
            self.rebinds(node, bound, self.scope(node))

    def _shortcut_import(self, node: ast.AST, path: str) -> None:
        if matches(allowlist.resolve(path), self.shortcuts) or matches(path, self.shortcuts):
            self.shortcut(node, path)

    # -- definitions

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            for atom in self.analysis.value(base):
                if atom.held:
                    continue
                if atom.kind == API and (atom.name in TENSOR_CLASSES or (
                        atom.name.startswith("torch.") and atom.name.endswith("Tensor"))):
                    self.add(node, f"class {node.name} subclasses a tensor (its results can lie to the tests)")
                    break
                if atom.kind in (PARAM, UNKNOWN, TEST, MODULE):
                    self.add(node, f"class {node.name} subclasses {ast.unparse(base)}, which the screen cannot follow")
                    break
        for keyword in node.keywords:
            if keyword.arg == "metaclass":
                self.add(node, f"class {node.name} has a metaclass")
        for item in node.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("__") \
                    and item.name.endswith("__") and item.name not in METHODS:
                self.add(item, f"defines {node.name}.{item.name} (changes how the tests see its objects)")
        self.rebinds(node, node.name, self.scope(node))
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        scope = self.scope(node)
        if scope.kind == "module" and node.name.startswith("__") and node.name.endswith("__"):
            self.add(node, f"defines {node.name}")
        self.rebinds(node, node.name, scope)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef
