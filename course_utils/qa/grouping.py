"""Which catalogue entries `course catalogue` may grade together in one submission.

Serves `course_utils.qa.catalogue.run`. Grading an entry costs a sandboxed kernel (most of it
importing torch); an entry of exercise X can share that kernel with an entry of exercise Y
when nothing Y's answer cell does can reach a cell X's verdict is read from, and the other
way round. This module finds, from the solution notebook alone, the cells each exercise's
answer can reach, and packs entries into groups whose reaches do not meet.

The reach of X (`Notebook.reach`) is X's answer cell, X's test cells, and every cell that
uses a name bound by a cell in the reach (a demo cell calling X, the test of an exercise
whose code calls X, a helper a test calls, ...), transitively. A name counts as used where
it appears as an identifier (an `ast.Name`, never an attribute and never a substring): at a
cell's top level it is the value bound by the nearest cell above that binds it; inside a
function it is looked up when called, so every cell binding it counts. The names X's answer
cell uses are those of the solution and of every catalogue entry of X (an entry may call
what the solution does not).

An entry's verdict is then read from its reach's cells only: the points they lose, the
messages they show. Two entries whose reaches are disjoint cannot change each other's
cells through names; what names cannot see (module-level side effects, shadowing imports,
new public names) makes an entry `solo_reason` to be graded alone.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from course_utils import ipynb

if TYPE_CHECKING:
    from nbformat import NotebookNode

_TESTING = re.compile(r"""checks\.testing\(\s*["']([^"']+)["']\s*\)""")
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _parse(source: str) -> ast.Module | None:
    """The cell's syntax tree; IPython's `%magic` and `!shell` lines are dropped (no names we track)."""
    lines = ["" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines()]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def _stores(node: ast.AST) -> set[str]:
    """Names bound anywhere in `node` (targets, parameters, defs, imports, comprehension variables)."""
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            names.add(sub.id)
        elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(sub.name)
        elif isinstance(sub, ast.arg):
            names.add(sub.arg)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            names.update(_import_names(sub))
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            names.add(sub.name)
    return names


def _import_names(node: ast.Import | ast.ImportFrom) -> list[str]:
    return [alias.asname or alias.name.split(".")[0] for alias in node.names]


def _top_binds(statement: ast.stmt) -> set[str]:
    """Module-level names one top-level statement binds (not its functions' or classes' locals)."""
    names: set[str] = set()
    todo: list[ast.AST] = [statement]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            todo.extend(node.decorator_list)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, _COMPREHENSIONS):
            continue  # its variables are its own (the iterables are module-level loads, found by _loads)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(_import_names(node))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        todo.extend(ast.iter_child_nodes(node))
    return names


def _loads(node: ast.AST, local: set[str], now: set[str], later: set[str]) -> None:
    """Split the names `node` reads from the module into read `now` (as the cell runs) and `later` (when called).

    `local`: names bound in the enclosing function (None of them is a module name there).
    """
    if isinstance(node, _FUNCTIONS):
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                _loads(default, local, now, later)
        for decorator in getattr(node, "decorator_list", []):
            _loads(decorator, local, now, later)
        inner = local | _stores(node.args) | set().union(*(_stores(s) for s in _body(node)))
        for sub in _body(node):
            _loads(sub, inner, later, later)
        return
    if isinstance(node, _COMPREHENSIONS):
        inner = local | set().union(*(_stores(g.target) for g in node.generators))
        for child in ast.iter_child_nodes(node):
            _loads(child, inner, now, later)
        return
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in local:
        now.add(node.id)
    for child in ast.iter_child_nodes(node):
        _loads(child, local, now, later)


def _body(node: ast.AST) -> list[ast.AST]:
    body = node.body
    return body if isinstance(body, list) else [body]


@dataclass
class Cell:
    index: int
    grade_id: str | None
    binds: set[str] = field(default_factory=set)
    now: set[str] = field(default_factory=set)     # read from an earlier cell as this cell runs
    later: set[str] = field(default_factory=set)   # read from the module when its functions are called
    imports: set[str] = field(default_factory=set)  # names its imports bind (modules and their functions)
    fixed: set[str] = field(default_factory=set)    # names it binds to a def, a class or a literal


def read_cell(index: int, grade_id: str | None, source: str) -> Cell:
    cell = Cell(index, grade_id)
    tree = _parse(source)
    if tree is None:  # unparsable: assume it reads every name (it will only lose grouping)
        cell.later = {"*"}
        return cell
    _run(tree.body, cell)
    cell.binds |= {name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names}
    cell.imports = {name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                    for name in _import_names(node)}
    cell.fixed = {node.name for node in tree.body
                  if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    cell.fixed |= {t.id for node in tree.body if isinstance(node, ast.Assign) and _literal(node.value)
                   for t in node.targets if isinstance(t, ast.Name)}
    return cell


def _literal(node: ast.expr) -> bool:
    """An immutable literal: a constant, or a tuple of them (`seed = 0`, `shape = (2, 3)`, `lr = -1e-3`)."""
    if isinstance(node, ast.Tuple):
        return all(_literal(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    return isinstance(node, ast.Constant)


def _run(statements: list[ast.stmt], cell: Cell) -> None:
    """Follow the cell's top level in the order it runs: a name it bound above is its own, not an earlier cell's."""
    def read(node: ast.AST | None) -> None:
        if node is not None:
            now: set[str] = set()
            _loads(node, set(), now, cell.later)
            cell.now |= now - cell.binds

    def bind(node: ast.AST | None) -> None:
        if node is not None:
            read(node)  # `x[0] = ...` reads x
            cell.binds.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                              and isinstance(n.ctx, (ast.Store, ast.Del)))

    for s in statements:
        if isinstance(s, (ast.For, ast.AsyncFor)):
            read(s.iter)
            bind(s.target)
            _run(s.body + s.orelse, cell)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            for item in s.items:
                read(item.context_expr)
                bind(item.optional_vars)
            _run(s.body, cell)
        elif isinstance(s, (ast.If, ast.While)):
            read(s.test)
            _run(s.body + s.orelse, cell)
        elif isinstance(s, ast.Try):
            _run(s.body, cell)
            for handler in s.handlers:
                read(handler.type)
                if handler.name:
                    cell.binds.add(handler.name)
                _run(handler.body, cell)
            _run(s.orelse + s.finalbody, cell)
        elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            read(s.value)
            for target in getattr(s, "targets", None) or [s.target]:
                if isinstance(s, ast.AugAssign):
                    read(ast.Name(target.id, ast.Load()) if isinstance(target, ast.Name) else target)
                bind(target)
        else:
            read(s)
            cell.binds |= _top_binds(s)


@dataclass
class Notebook:
    """The solution notebook's cells, what each binds and reads, and each exercise's reach."""
    cells: list[Cell]
    answers: dict[str, int]            # exercise -> index of its answer cell
    tests: dict[str, set[int]]         # exercise -> indices of its test cells
    own: dict[str, set[str]]           # exercise -> the module names its solution binds
    imports: dict[str, set[str]]       # name -> the imports that bind it in the notebook ("module:name")
    reach: dict[str, set[int]]         # exercise -> the cells its answer can change
    grade_ids: dict[int, str]          # index -> grade_id of a graded (test) cell
    decorators: dict[str, list[ast.expr]] = field(default_factory=dict)  # exercise -> its solution's decorators

    @property
    def counted(self) -> set[int]:
        """The answer and graded cells: the cells a verdict is read from or that define an exercise."""
        return set(self.answers.values()) | set(self.grade_ids)

    def reached_cells(self, exercise: str) -> set[str]:
        """grade_ids of the test cells in `exercise`'s reach: its verdict is read from these."""
        return {self.grade_ids[i] for i in self.reach[exercise] if i in self.grade_ids}


def analyse(solution_nb: NotebookNode, entry_sources: dict[str, list[str]] | None = None) -> Notebook:
    """The dependency analysis of a solution notebook; `entry_sources`: exercise -> its catalogue entries' sources."""
    entry_sources = entry_sources or {}
    cells, answers, tests, own, grade_ids, decorators = [], {}, {}, {}, {}, {}
    imports: dict[str, set[str]] = {}
    code = [c for c in solution_nb.cells if c.cell_type == "code"]
    for index, nb_cell in enumerate(code):
        meta = ipynb.nbgrader_meta(nb_cell)
        grade_id = meta.get("grade_id")
        cell = read_cell(index, grade_id, nb_cell.source)
        tree = _parse(nb_cell.source)
        if meta.get("solution") and grade_id:
            answers[grade_id] = index
            own[grade_id] = set(cell.binds)
            decorators[grade_id] = [d for node in (tree.body if tree else []) for d in getattr(node, "decorator_list", [])]
            for source in entry_sources.get(grade_id, []):  # an entry may read what the solution does not
                entry = read_cell(index, grade_id, source)
                cell.now |= entry.now - cell.binds
                cell.later |= entry.later
        elif meta.get("grade") and grade_id:
            grade_ids[index] = grade_id
            for exercise in _TESTING.findall(nb_cell.source):
                tests.setdefault(exercise, set()).add(index)
        for node in ast.walk(tree) if tree else []:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias, name in zip(node.names, _import_names(node), strict=True):
                    imports.setdefault(name, set()).add(_import_key(node, alias))
        cells.append(cell)

    readers = _readers(cells)
    reach = {}
    for exercise, index in answers.items():
        found = {index, *tests.get(exercise, ())}
        todo = list(found)
        while todo:
            for reader in readers[todo.pop()]:
                if reader not in found:
                    found.add(reader)
                    todo.append(reader)
        reach[exercise] = found
    return Notebook(cells, answers, tests, own, imports, reach, grade_ids, decorators)


def _import_key(node: ast.Import | ast.ImportFrom, alias: ast.alias) -> str:
    if isinstance(node, ast.ImportFrom):
        return f"{'.' * node.level}{node.module or ''}:{alias.name}"
    return f"{alias.name}:" if alias.asname else f"{alias.name.split('.')[0]}:"


def _readers(cells: list[Cell]) -> dict[int, set[int]]:
    """cell index -> the cells that read a name it binds.

    A function reading a module name its own cell binds (a test's `gen`, set above the
    function and used by it in the same cell) reads the cell's own value while the cell runs;
    only a later cell calling that function (a reader of the cell) can see another cell's value.
    """
    binders: dict[str, list[int]] = {}
    for cell in cells:
        for name in cell.binds:
            binders.setdefault(name, []).append(cell.index)
    everything = {n for c in cells for n in c.binds}
    readers: dict[int, set[int]] = {cell.index: set() for cell in cells}
    for cell in cells:
        for name in cell.now:
            above = [i for i in binders.get(name, []) if i < cell.index]
            for source in above[-1:] or binders.get(name, []):   # nothing above: it would fail; be safe
                readers[source].add(cell.index)
        for name in everything if "*" in cell.later else cell.later - cell.binds:
            for source in binders.get(name, []):
                if source != cell.index:
                    readers[source].add(cell.index)
    # A cell passing an object to a function may have it changed (`model.eval()`, an optimizer
    # step): every later cell reading that name may see the change. Modules, functions, classes
    # and names only ever bound to literals (`seed = 0`) are left out: an answer cannot change them
    # without an attribute assignment or a `setattr`, for which `solo_reason` grades it alone.
    constant = {n for c in cells for n in c.imports | c.fixed}
    readers_of: dict[str, list[int]] = {}
    for cell in cells:
        for name in cell.now | cell.later:
            readers_of.setdefault(name, []).append(cell.index)
    for cell in cells:
        for name in (cell.now & binders.keys()) - constant:  # builtins are left out too
            readers[cell.index].update(r for r in readers_of[name] if r > cell.index)
    for cell in cells:  # a later caller of this cell's functions sees what other cells bound in between
        for name in cell.later & cell.binds:
            for source in binders[name]:
                if source > cell.index:
                    readers[source].update(r for r in readers[cell.index] if r > source)
    return readers


def depends(notebook: Notebook, exercise: str, other: str) -> bool:
    """Whether `exercise`'s answer or tests can be changed by `other`'s answer (directly or through cells)."""
    return bool(notebook.reach[other] & ({notebook.answers[exercise]} | notebook.tests.get(exercise, set())))


def compatible(notebook: Notebook, exercise: str, other: str) -> bool:
    """Whether entries of the two exercises may share a submission: no answer or graded cell is in both reaches.

    An ungraded cell in both (a demo calling both exercises) is harmless: what it fails to bind
    only matters through the cells that read it, which are then in both reaches too.
    """
    return exercise != other and not notebook.reach[exercise] & notebook.reach[other] & notebook.counted


def solo_reason(notebook: Notebook, exercise: str, source: str) -> str | None:
    """Why an entry of `exercise` must be graded alone (None: it may share a submission).

    Grouping is only sound for an answer cell that binds its exercise's names and private
    helpers, and does nothing else at the top level that other cells could notice.
    """
    if exercise not in notebook.answers:
        return f"{exercise} has no answer cell in the solution"
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None  # it binds nothing at all: its exercise's cells fail, no other cell can notice
    touched = _process_state(tree)
    if touched:
        return f"it {touched} (a change other cells may notice)"
    allowed = notebook.own[exercise]
    bound_elsewhere = {n for c in notebook.cells if c.index != notebook.answers[exercise] for n in c.binds}
    for k, statement in enumerate(tree.body):
        if k == 0 and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # the docstring
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            for alias, name in zip(statement.names, _import_names(statement), strict=True):
                key = _import_key(statement, alias)
                if name in notebook.imports and notebook.imports[name] != {key}:
                    return f"its import binds {name!r}, which the notebook binds otherwise"
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = {statement.name}
            theirs = {ast.dump(d) for d in notebook.decorators.get(exercise, set())}
            if any(isinstance(d, ast.Call) and ast.dump(d) not in theirs for d in statement.decorator_list):
                return f"{statement.name} has a decorator (not the solution's) that runs code when defined"
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            if any(isinstance(n, (ast.Call, ast.Await, ast.Yield)) for n in ast.walk(statement.value)):
                return "a top-level assignment calls code when the cell runs"
            names = _top_binds(statement)
        else:
            return f"a top-level {type(statement).__name__} statement (a side effect other cells may notice)"
        for name in names:
            if name in allowed:
                continue
            if not name.startswith("_"):
                return f"it defines {name!r}, which is not one of {exercise}'s names"
            if name in bound_elsewhere:
                return f"its helper {name!r} shadows a name the notebook binds"
    return None


# Calls that change what every later cell runs with (random state, defaults, modes, any attribute).
_STATEFUL_CALLS = {"manual_seed", "seed", "set_default_dtype", "set_default_device", "set_default_tensor_type",
                   "set_grad_enabled", "use_deterministic_algorithms", "set_printoptions", "set_num_threads",
                   "set_flush_denormal"}
_STATEFUL_BUILTINS = {"setattr", "delattr", "globals", "exec", "eval", "__import__"}


def _process_state(tree: ast.Module) -> str | None:
    """What an answer does, when called, to state outside its own objects (None: nothing we can see)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return f"declares {', '.join(node.names)} {type(node).__name__.lower()}"
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in _STATEFUL_BUILTINS:
                on_self = func.id in ("setattr", "delattr") and node.args and isinstance(node.args[0], ast.Name) \
                    and node.args[0].id == "self"
                if not on_self:
                    return f"calls {func.id}"
            if isinstance(func, ast.Attribute) and func.attr in _STATEFUL_CALLS:
                return f"calls {func.attr}"
    for function in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        local = _stores(function.args) | set().union(*(_stores(s) for s in function.body))
        for node in ast.walk(function):
            targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
            for target in targets if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) else []:
                root = target
                while isinstance(root, (ast.Attribute, ast.Subscript)):
                    root = root.value
                if root is not target and isinstance(root, ast.Name) and root.id not in local:
                    return f"changes {root.id}, a module-level object, when called"
    return None


def private_names(source: str) -> set[str]:
    """The private (leading underscore) module names an entry binds: two group members must not share one."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    return {n for s in tree.body for n in _top_binds(s) if n.startswith("_")}


def pack(items: list[tuple[str, str, Path]], notebook: Notebook) -> list[list[tuple[str, str, Path]]]:
    """Groups of (exercise, key, path): at most one per exercise, pairwise `compatible`, private names apart.

    Greedy, in catalogue order; items `solo_reason` rejects get a group of their own.
    """
    groups: list[list[tuple[str, str, Path]]] = []
    helpers: list[set[str]] = []
    for item in items:
        exercise, _, path = item
        source = path.read_text()
        if solo_reason(notebook, exercise, source) is not None:
            groups.append([item])
            helpers.append({"*"})   # nothing joins it
            continue
        mine = private_names(source)
        for group, taken in zip(groups, helpers, strict=True):
            if "*" in taken or mine & taken:
                continue
            if all(compatible(notebook, exercise, other) for other, _, _ in group):
                group.append(item)
                taken |= mine
                break
        else:
            groups.append([item])
            helpers.append(set(mine))
    return groups
