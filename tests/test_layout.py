"""The package's rooms keep to their audiences, and every public function says its types.

course_utils/notebook/ is what a student's kernel loads; grader/ what instructors grade
with; qa/ what proves the course; bench/ what measures it; cli/ the `course` command. The
imports are read from the source (nothing is imported), so a forbidden import fails here
even when no test happens to run it.
"""
import ast

import pytest

from conftest import ROOT

PACKAGE = ROOT / "course_utils"
ROOMS = ("notebook", "grader", "qa", "bench", "cli")
# What each room may import of course_utils (besides itself).
ALLOWED = {
    "notebook": set(),
    "grader": {"course", "ipynb"},
    "qa": {"course", "ipynb", "grader", "notebook"},
    "bench": {"course", "ipynb", "grader", "qa", "notebook"},
    "cli": {"course", "ipynb", "grader", "qa", "bench", "notebook"},
}
SHARED = ("course.py", "ipynb.py")
# The verdicts run the tests' own code in the grader: they alone of the grader import the notebook package
# (the tests' vocabulary: checks, trusted, the probe's wire format), never a student's code.
ALSO_ALLOWED = {("grader", "judge", "verdicts"): {"notebook"}}


def _modules(folder):
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _course_utils_imports(path):
    """The course_utils parts `path` imports: {"grader", "course", ...} (the part after course_utils.)."""
    parts = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        for name in names:
            if name.startswith("course_utils."):
                parts.add(name.split(".")[1])
    return parts


@pytest.mark.parametrize("room", ROOMS)
def test_each_room_imports_only_what_its_audience_may(room):
    bad = {}
    for path in _modules(PACKAGE / room):
        parts = path.relative_to(PACKAGE).parts
        extra = set().union(*(more for folder, more in ALSO_ALLOWED.items() if parts[:len(folder)] == folder))
        imported = _course_utils_imports(path) - {room} - ALLOWED[room] - extra
        if imported:
            bad[str(path.relative_to(ROOT))] = sorted(imported)
    assert not bad, f"{room}/ imports parts it must not: {bad}"


def test_the_shared_modules_import_no_room():
    for name in SHARED:
        assert not _course_utils_imports(PACKAGE / name) & set(ROOMS), name


def test_the_students_kernel_imports_no_grader_or_course_tooling():
    """The student part must not even name the grader's packages (Dask, PostgreSQL, nbgrader, papermill)."""
    heavy = {"dask", "distributed", "psycopg", "nbgrader", "papermill", "sqlalchemy"}
    for path in _modules(PACKAGE / "notebook"):
        tree = ast.parse(path.read_text())
        roots = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for alias in node.names}
        roots |= {node.module.split(".")[0] for node in ast.walk(tree)
                  if isinstance(node, ast.ImportFrom) and node.module and node.level == 0}
        assert not roots & heavy, f"{path.name} imports {roots & heavy}"


@pytest.mark.parametrize("room", ROOMS)
def test_each_room_says_whom_it_serves(room):
    doc = ast.get_docstring(ast.parse((PACKAGE / room / "__init__.py").read_text())) or ""
    assert len(doc.split()) > 30, f"{room}/__init__.py needs a docstring: whom it serves and what it may import"
    assert "import" in doc, f"{room}/__init__.py: say what the room may import"


def test_every_module_has_a_docstring():
    missing = [str(p.relative_to(ROOT)) for p in _modules(PACKAGE)
               if p.name != "__main__.py" and not ast.get_docstring(ast.parse(p.read_text()))]
    assert not missing, missing


def _public_functions(tree):
    """(name, node) of public functions and methods (a method is public when it and its class are)."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            yield node.name, node
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                        (not item.name.startswith("_") or item.name == "__init__"):
                    yield f"{node.name}.{item.name}", item


def test_every_public_function_is_typed():
    untyped = []
    for path in _modules(PACKAGE):
        for name, node in _public_functions(ast.parse(path.read_text())):
            args = node.args
            params = [a for a in args.posonlyargs + args.args + args.kwonlyargs if a.arg not in ("self", "cls")]
            params += [a for a in (args.vararg, args.kwarg) if a is not None]
            missing = [a.arg for a in params if a.annotation is None]
            if node.returns is None:
                missing.append("return")
            if missing:
                untyped.append(f"{path.relative_to(ROOT)}:{node.lineno} {name}: {', '.join(missing)}")
    assert not untyped, "annotate these:\n" + "\n".join(untyped)


def _module_name(path):
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _top_level_imports(path, known):
    """The course_utils modules `path` imports when it is imported (imports inside functions wait)."""
    found = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:   # `from package import part` imports the part (the package is its way in)
                part = f"{node.module}.{alias.name}"
                found.add(part if part in known else node.module)
    return {name for name in found if name in known}


def test_no_import_cycle():
    """No module imports, while it is being imported, one that imports it back (directly or not)."""
    modules = {_module_name(p): p for p in _modules(PACKAGE)}
    graph = {name: _top_level_imports(path, modules) - {name} for name, path in modules.items()}
    state, cycles = {}, []

    def visit(name, trail):
        state[name] = "open"
        for other in sorted(graph[name]):
            if state.get(other) == "open":
                cycles.append(" -> ".join([*trail[trail.index(other):], other]))
            elif other not in state:
                visit(other, [*trail, other])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not cycles, "import cycles:\n" + "\n".join(cycles)
