"""One test cell judged in the grader's process: its code run here, the student's objects reached there.

For instructors: a grade is decided by code the student's code cannot reach. nbgrader would run
a test cell in the kernel that ran the student's code, where that code could filter the test's
failure out of the kernel's replies, skip the cell, or read and print the hidden tests. Here the
cell's source (the gradebook's, restored by nbgrader before grading) runs in the grader, in a
namespace of its own:

- the notebook's provided definitions (imports, functions, classes of its locked cells), defined
  here from the gradebook's source: the course's trusted code, which the test's references use;
- every other name the cell reads (the student's answers, what the notebook built: `Q`, `model`,
  `session`) fetched from the graded kernel at the cell's place in the notebook, as data or as
  `Remote` objects (`verdicts.link`).

The cell passes only if its code runs to its end: an exception, a lost or malformed reply, a probe
that never answered, all fail it. Its outputs are only what this module writes: what the test
printed, or the failure's message in the form a failing test shows in the student's kernel
(`tracing`), never a line of the test's source.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import hashlib
import io
import symtable
import warnings
from dataclasses import dataclass, field

import torch

from course_utils.grader.judge.screen.parsing import PARSE_LOCK   # one parse at a time (python/cpython#106905)
from course_utils.grader.judge.verdicts.channel import CellTimeout, Channel, ChannelError, KernelLost
from course_utils.grader.judge.verdicts.link import AuthoringError, Link
from course_utils.notebook import checks, tracing, wire

BUILTINS = frozenset(dir(builtins))


def parse(source: str) -> ast.Module:
    """A cell's code: Python as it is, else after IPython's transforms (magics, `!cmd`, `obj?`).

    What those transforms change is never valid Python, so valid Python is parsed as it is: their
    tokenizing pass cost about 5 ms a cell, for every test cell of every submission.
    """
    with PARSE_LOCK:
        try:
            return ast.parse(source)
        except SyntaxError:
            from IPython.core.inputtransformer2 import TransformerManager

            return ast.parse(TransformerManager().transform_cell(source))


def free_names(tree: ast.Module) -> set[str]:
    """The global names a cell reads, at its top level or inside its functions and classes."""
    with PARSE_LOCK:
        table = symtable.symtable(ast.unparse(tree), "<cell>", "exec")
    names, todo = set(), [table]
    while todo:
        scope = todo.pop()
        todo.extend(scope.get_children())
        for symbol in scope.get_symbols():
            top = scope is table
            if symbol.is_referenced() and (top or symbol.is_global()):
                names.add(symbol.get_name())
    return names


def _definition(node: ast.stmt) -> bool:
    """A statement of a provided cell that defines and does no work: an import, a def, a class, an alias."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return True
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        return not any(isinstance(n, (ast.Call, ast.Lambda, ast.Await, ast.Yield, ast.NamedExpr))
                       for n in ast.walk(node.value))
    return False


@dataclass
class Notebook:
    """What the grader knows of the notebook it is grading, cell after cell."""
    salt: bytes
    provided: dict = field(default_factory=lambda: {"__name__": "__main__", "__builtins__": builtins})
    failed: dict[str, bool] = field(default_factory=dict)    # exercise -> its last judged test failed
    seen: int = 0

    def define(self, source: str) -> None:
        """Define here what a provided (locked, not graded) cell defines: its imports, functions, classes."""
        try:
            tree = parse(source)
        except (SyntaxError, ValueError):
            return
        for node in tree.body:
            if not _definition(node):
                continue
            code = compile(ast.Module(body=[node], type_ignores=[]), "<provided cell>", "exec")
            with contextlib.suppress(Exception):   # a definition that needs what this cell built: the kernel's
                exec(code, self.provided)  # noqa: S102  (the course's own code, from the gradebook)


@dataclass
class Verdict:
    passed: bool
    outputs: list[dict]


def judge(source: str, grade_id: str, notebook: Notebook, channel: Channel, seconds: float) -> Verdict:
    """Run the test cell `source` here against the kernel behind `channel`; its verdict and outputs."""
    tree = parse(source)
    notebook.seen += 1
    namespace = dict(notebook.provided)
    printed = io.StringIO()
    tracing._running = None
    exercise = None
    link = None
    try:
        channel.start(seconds)
        link = Link(channel, namespace)
        wanted = sorted(free_names(tree) - set(namespace) - BUILTINS)
        namespace.update(link.lookup(wanted) if wanted else {})
        code = compile(tree, f"<test cell {grade_id}>", "exec")
        checks._remote, checks._salt = link, notebook.salt
        torch.manual_seed(_seed(notebook.salt, grade_id))
        try:
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()), \
                    warnings.catch_warnings(), link.forwarding():
                warnings.simplefilter("ignore")
                exec(code, namespace)  # noqa: S102  (the gradebook's test cell)
        finally:
            exercise = tracing._running
            checks._remote, checks._salt = None, None
        channel.finish()
    except (CellTimeout, KernelLost):
        raise
    except BaseException as error:  # noqa: BLE001  (whatever stopped the test, the cell fails)
        if isinstance(error, KeyboardInterrupt):
            raise
        exercise = exercise or tracing._running
        message, name = _message(error, exercise, link, notebook)
        with contextlib.suppress(ChannelError):
            channel.finish()
        if exercise:
            notebook.failed[exercise] = True
        outputs = _stdout(printed) + [{
            "output_type": "error", "ename": name, "evalue": message,
            "traceback": ([f"Test of {exercise} failed."] if exercise else []) + [f"{name}: {message}"]}]
        return Verdict(False, outputs)
    if exercise:
        notebook.failed[exercise] = False
    return Verdict(True, _stdout(printed))


def _seed(salt: bytes, grade_id: str) -> int:
    return int.from_bytes(hashlib.sha256(salt + grade_id.encode()).digest()[:7], "big")


def _stdout(printed: io.StringIO) -> list[dict]:
    text = printed.getvalue()
    return [{"output_type": "stream", "name": "stdout", "text": text}] if text else []


def _message(error: BaseException, exercise: str | None, link: Link | None, notebook: Notebook) -> tuple[str, str]:
    """The failure's one message and the exception's name, as the student's kernel would show them."""
    if isinstance(error, (ChannelError, wire.WireError)):
        return (f"the grader could not run this test to its end: {error}. No test after a lost kernel "
                "counts; see your notebook's own output above.", "GradingError")
    if isinstance(error, AuthoringError):
        return f"this test could not be run by the grader ({error}); please tell your instructor.", "GradingError"
    broken = None
    if exercise and link is not None and not isinstance(error, ChannelError):
        failing = [name for name, failed in notebook.failed.items() if failed and name != exercise]
        if failing:
            with contextlib.suppress(Exception):
                found = link.request({"op": "uses", "exercise": exercise, "tested": failing})
                broken = next((n for n in found if n in failing), None) if isinstance(found, list) else None
    message = tracing.test_message(exercise, error, None, broken) if exercise else str(error)
    name = type(error).__name__ if message == str(error) else "AssertionError"
    return message, name
