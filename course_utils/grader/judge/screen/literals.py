"""The strings a student's code names attributes with, where the source says what they are.

For the screen's rules. `getattr(obj, name)`, `setattr(self, name, value)`, `operator.attrgetter(name)`
and a format string's fields (`"{0.weight}".format(layer)`) reach attributes by a string: the screen
allows them only where it can read every string that name can be, and so check each attribute as if
written out. It reads constants, f-strings and sums of them; a name bound only to such strings (in
its function, or in the notebook's cells); a loop variable whose loop (for or comprehension) runs
over literals, written out or bound to a name; and a parameter of a function that is only ever
called, by name, with such strings (`def maps(layers, name)` called as `maps(layers, "self_attn")`).
Anything else cannot be read.
"""
from __future__ import annotations

import ast

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


class Strings:
    """Reads the strings an expression can be, in a submission whose every node's parent is known."""

    def __init__(self, parents: dict[ast.AST, ast.AST], module_values: dict[str, list[ast.AST] | None],
                 call_sites: dict[str, list[ast.Call] | None]) -> None:
        self.parents = parents
        self.module_values = module_values   # what each module-scope name is assigned (None: bound otherwise too)
        self.call_sites = call_sites         # the calls of each name, None where the name is used otherwise too

    def of(self, node: ast.AST, at: ast.AST, depth: int = 0) -> list[str] | None:
        """Every string `node` (written at `at`) can be, where the screen can tell, else None."""
        if depth > 4:  # a name bound to a name bound to ...: enough
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.JoinedStr):
            values = [""]
            for part in node.values:
                options = self.of(part.value if isinstance(part, ast.FormattedValue) else part, at, depth + 1)
                if options is None:
                    return None
                values = [v + o for v in values for o in options]
            return values
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.of(node.left, at, depth + 1), self.of(node.right, at, depth + 1)
            return None if left is None or right is None else [a + b for a in left for b in right]
        if isinstance(node, ast.Name):
            return self._name(node.id, at, depth)
        return None

    def _name(self, name: str, at: ast.AST, depth: int) -> list[str] | None:
        looped = self._loop_values(name, at)
        if looped is not None:
            return looped or None
        values = self._bound(name, at)
        if not values:
            return None
        found: list[str] = []
        for value in values:
            strings = self.of(value, value, depth + 1)
            if strings is None:
                return None
            found += strings
        return found

    def _bound(self, name: str, at: ast.AST) -> list[ast.AST] | None:
        """The expressions `name` (read at `at`) is bound to: assigned, or passed for a parameter."""
        scope = _enclosing(at, self.parents)
        while isinstance(scope, ast.Lambda) and name not in _parameters(scope) and scope in self.parents:
            scope = _enclosing(self.parents[scope], self.parents)
        if isinstance(scope, ast.Module):
            return self.module_values.get(name)
        if name in _parameters(scope):
            return self._arguments(scope, name)
        return _function_values(scope, name, self.parents)

    def _arguments(self, function: ast.AST, name: str) -> list[ast.AST] | None:
        """What every call of `function` passes for its parameter `name`, where all its calls are known."""
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.decorator_list \
                or _function_values(function, name, self.parents) != []:
            return None
        sites = self.call_sites.get(function.name)
        args = function.args
        positional = [a.arg for a in (*args.posonlyargs, *args.args)]
        defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults))
        defaults |= {a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None}
        if not sites or isinstance(self.parents.get(function), ast.ClassDef):
            return None  # never called, or a method (called through an object: callers unknown)
        found = []
        for call in sites:
            if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                return None
            given = {k.arg: k.value for k in call.keywords}
            if name in positional and positional.index(name) < len(call.args):
                given[name] = call.args[positional.index(name)]
            value = given.get(name, defaults.get(name))
            if value is None:
                return None
            found.append(value)
        return found

    def _loop_values(self, name: str, at: ast.AST) -> list[str] | None:
        """The strings a loop variable takes, where the loop (for or comprehension) runs over literals;
        [] where `name` is a loop's variable whose values cannot be read; None where it is no loop's."""
        node = at
        while node in self.parents:
            node = self.parents[node]
            comprehension = isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp))
            loops = [node] if isinstance(node, (ast.For, ast.AsyncFor)) else node.generators if comprehension else []
            for loop in loops:
                position = _position(loop.target, name)
                if position is None:
                    continue
                rows = self._literal_rows(loop.iter, node)
                values = []
                for row in rows or []:
                    item = row if position == () else _index(row, position)
                    if not (isinstance(item, ast.Constant) and isinstance(item.value, str)):
                        return []
                    values.append(item.value)
                return values if rows is not None else []
            if isinstance(node, _FUNCTIONS):
                return None
        return None

    def _literal_rows(self, node: ast.AST, at: ast.AST) -> list[ast.AST] | None:
        """The elements a loop runs over, where they are written out: a tuple, a list, a dict's .items()."""
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return list(node.elts)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [ast.Constant(c) for c in node.value]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args:
            mapping = self._literal(node.func.value, at)
            if isinstance(mapping, ast.Dict) and node.func.attr in ("items", "keys", "values"):
                pairs = list(zip(mapping.keys, mapping.values))
                if node.func.attr == "items":
                    return [ast.Tuple(elts=[k, v], ctx=ast.Load()) for k, v in pairs]
                return [k if node.func.attr == "keys" else v for k, v in pairs]  # type: ignore[misc]
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("zip", "enumerate"):
            columns = [self._literal_rows(a, at) for a in node.args]
            if node.func.id == "enumerate" and columns and columns[0] is not None:
                return [ast.Tuple(elts=[ast.Constant(i), row], ctx=ast.Load()) for i, row in enumerate(columns[0])]
            if columns and all(c is not None for c in columns):
                return [ast.Tuple(elts=list(row), ctx=ast.Load()) for row in zip(*columns)]  # type: ignore[arg-type]
            return None
        literal = self._literal(node, at)
        if isinstance(literal, ast.Dict):
            return list(literal.keys)  # type: ignore[arg-type]
        return list(literal.elts) if isinstance(literal, (ast.Tuple, ast.List, ast.Set)) else None

    def _literal(self, node: ast.AST, at: ast.AST) -> ast.AST | None:
        """`node` as a literal container: written out, or a name bound once, and only, to one."""
        if isinstance(node, (ast.Dict, ast.Tuple, ast.List, ast.Set)):
            return node
        if not isinstance(node, ast.Name):
            return None
        found = self._bound(node.id, at) or []
        containers = (ast.Dict, ast.Tuple, ast.List, ast.Set)
        return found[0] if len(found) == 1 and isinstance(found[0], containers) else None


def constant_prefix(node: ast.AST) -> str:
    """The text every value of a string expression starts with (f"layer_{i}": "layer_"), "" if none is known."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        return constant_prefix(node.values[0])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = constant_prefix(node.left)
        return left + constant_prefix(node.right) if isinstance(node.left, ast.Constant) else left
    return ""


def _function_values(function: ast.AST, name: str, parents: dict[ast.AST, ast.AST]) -> list[ast.AST] | None:
    """What `name` is assigned in `function` itself, if it is bound there by plain assignments only."""
    if isinstance(function, ast.Lambda):
        return None
    values = []
    todo = list(function.body)  # type: ignore[attr-defined]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return None
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            parent = parents.get(node)
            if not (isinstance(parent, (ast.Assign, ast.AnnAssign)) and node in _targets(parent)):
                return None
            values.append(parent.value)
        if not isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
    return values


def _parameters(function: ast.AST) -> set[str]:
    args = function.args  # type: ignore[attr-defined]
    return {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a}


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.AST]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


def _enclosing(at: ast.AST, parents: dict[ast.AST, ast.AST]) -> ast.AST:
    scope = at
    while scope in parents and not isinstance(scope, (*_FUNCTIONS, ast.Module)):
        scope = parents[scope]
    return scope


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
