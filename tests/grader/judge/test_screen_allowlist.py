"""The screen's allowlist against the installed packages and the course's notebook modules.

Every path it holds exists and is what the list says it is (a module, a function, a class whose
attributes can be set, a value), so a torch upgrade that renames or moves something fails here
rather than holding honest students; the course's own names (`checks`, `trusted`) are read from
their source, aliases followed (`trusted.sdpa` is torch's function), and what the notebooks import
from the course is on the list.
"""
import builtins
import importlib
import types

import pytest

from conftest import COURSE, IDS
from course_utils import ipynb
from course_utils.grader.judge.screen import allowed_python, allowed_torch, allowlist
from course_utils.grader.judge.screen.parsing import imported_paths, parse

PATHS = {f"{module}.{name}": kind for source in (allowed_torch, allowed_python)
         for kind, groups in (("function", source.FUNCTIONS), ("class", source.CLASSES), ("value", source.VALUES))
         for module, names in groups.items() for name in names.split()}
MODULES = sorted(allowed_torch.MODULES | allowed_python.MODULES)


def _resolve(path):
    if path == "builtins.display":  # IPython's, put among the builtins of every kernel
        from IPython.display import display

        return display
    parts = path.split(".")
    for i in range(len(parts) - 1, 0, -1):  # the longest importable prefix, then attributes (sys.stderr.write)
        try:
            found = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            found = getattr(found, part)
        return found
    raise ImportError(path)


@pytest.mark.parametrize("path", MODULES)
def test_every_module_on_the_allowlist_exists(path):
    settings = any(s.startswith(path + ".") for s in allowlist.SETTABLE_ATTRIBUTES)
    try:
        found = importlib.import_module(path)
    except ModuleNotFoundError:
        parent, _, name = path.rpartition(".")
        found = getattr(importlib.import_module(parent), name)
    assert isinstance(found, types.ModuleType) or settings, f"{path} is not a module"


def test_every_name_on_the_allowlist_exists_and_is_what_the_list_says():
    wrong = []
    for path, kind in PATHS.items():
        try:
            found = _resolve(path)
        except (AttributeError, ImportError) as error:
            wrong.append(f"{path}: {error}")
            continue
        immutable = isinstance(found, type) and bool(found.__flags__ & (1 << 8))  # the interpreter fixes it
        what = ("module" if isinstance(found, types.ModuleType)
                else "class" if isinstance(found, type) and not immutable
                else "function" if callable(found) and not isinstance(found, type) else "value")
        if what != kind and not (kind == "value" and what == "function"):  # a value may be callable (np.c_)
            wrong.append(f"{path}: listed as a {kind}, is a {what}")
    assert not wrong, wrong


def test_nothing_that_runs_code_from_strings_is_on_it():
    """Spot checks of what the allowlist leaves out, whatever the generation of the lists did."""
    for path in ("builtins.exec", "builtins.eval", "builtins.compile", "builtins.open", "builtins.help",
                 "builtins.__import__", "builtins.vars", "typing.get_type_hints", "typing.ForwardRef", "torch.load",
                 "torch.from_file", "torch.utils.benchmark", "torch.utils.collect_env", "torch.jit", "torch.hub",
                 "torch.set_default_dtype", "numpy.load", "numpy.lib", "matplotlib.pyplot.switch_backend",
                 "operator.setitem", "torch.distributions.register_kl", "dataclasses.make_dataclass"):
        assert allowlist.kind(path) is None, path
    assert not {"exec", "savefig", "tofile", "dump", "format"} & allowlist.method_names()  # eval: nn.Module.eval


def test_the_course_modules_are_read_from_their_source():
    assert allowlist.kind("course_utils.notebook.checks.expect_close") == allowlist.FUNCTION
    assert allowlist.resolve("course_utils.notebook.trusted.sdpa") == "torch.nn.functional.scaled_dot_product_attention"
    assert allowlist.kind("course_utils.notebook.trusted.Tensor") == allowlist.CLASS
    assert allowlist.resolve("course_utils.notebook.setup_notebook") == "course_utils.notebook.session.setup_notebook"
    for reached in ("checks.os", "checks.sys", "trusted.torch", "progress.standing", "tracing"):
        assert allowlist.kind(f"course_utils.notebook.{reached}") is None, reached
    assert builtins.len and allowlist.builtin("len") == allowlist.FUNCTION and allowlist.builtin("exec") is None


@pytest.mark.parametrize("aid", IDS)
def test_what_the_notebooks_import_from_the_course_is_on_the_allowlist(aid):
    """The setup cell's names (checks, trusted, setup_notebook, ...) must reach: a student's cell uses them."""
    for cell in ipynb.read(COURSE.solution(aid)).cells:
        tree = parse(cell.source) if cell.cell_type == "code" else None
        for name, path in (imported_paths(tree) if tree else {}).items():
            if path.startswith("course_utils."):
                assert allowlist.kind(path), f"{aid}: {name} ({path}) is not on the allowlist"
