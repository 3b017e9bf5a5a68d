"""Failures traced to their cause, for the student reading a failed test cell.

Three things made a failing test hard to read: a wrong `LayerNorm` made `AddAndNorm`'s test
fail with `AddAndNorm`'s own hint (which then pointed at the wrong code); an exception in the
student's code surfaced as torch's raw message from deep inside `nn.Module`; and every
failure printed 20 to 70 lines of `checks.py` and torch frames before the message.

Every test cell starts with `checks.testing("Exercise")`. This module then keeps, per test
cell, whether its last run failed, and installs an IPython exception handler that shows a
test cell's failure in a few lines:

- when the exercise under test uses (in its code, directly or through helpers) an exercise
  whose test fails above, only "X uses Y, whose test fails above: fix Y first";
- when the exception came from the student's code, which exercise raised what, at which
  line of its answer cell, and that line;
- otherwise the message of the check that failed.

Outside test cells the handler only hides frames no student wrote or can act on (`checks`,
`contextlib`, torch's `Module.__call__` machinery, IPython's own) and formats the rest as
IPython would. It is IPython's documented `set_custom_exc` hook, not a patched formatter, so a
bug here falls back to IPython's own traceback (IPython unregisters a handler that raises).
"""
from __future__ import annotations

import hashlib
import linecache
import os
import re
import sys
import types
from collections.abc import Iterator

_running: str | None = None          # the exercise whose test cell is running
_failed: dict[str, set[str]] = {}    # exercise -> digests of its test cells whose last run failed
_grading = False                     # under nbgrader: never show a test cell's source (hidden tests)
_test_files: set[str] = set()        # IPython's file names of the cells that ran as tests

# Frames a student never needs to read: ours, the context managers', torch's call machinery, IPython's exec.
_HIDDEN_FILES = (
    os.path.join("course_utils", "notebook", "checks.py"),
    os.path.join("course_utils", "notebook", "tracing.py"),
    "contextlib.py",
    os.path.join("torch", "nn", "modules", "module.py"),
    os.path.join("IPython", "core", "interactiveshell.py"),
)


def testing(exercise: str) -> None:
    """Mark the running cell as a test of `exercise` (the first line of every test cell)."""
    global _running
    _running = exercise
    frame = sys._getframe(1)
    while frame is not None and not _is_cell_file(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is not None:  # its frames are test code, never the student's (a hidden test's helper must not show)
        _test_files.add(frame.f_code.co_filename)


def failing(exercise: str) -> bool:
    """Whether a test cell of `exercise` failed the last time it ran."""
    return bool(_failed.get(exercise))


def install(shell: object, grading: bool) -> None:
    """Register the hooks and the exception handler on `shell` (once per kernel)."""
    global _grading
    _grading = grading
    if shell is None or getattr(shell, "_course_tracing", False):
        return
    shell._course_tracing = True
    shell.events.register("pre_run_cell", _before_cell)
    shell.events.register("post_run_cell", _after_cell)
    shell.set_custom_exc((Exception,), _show)


def _before_cell(info: object) -> None:
    global _running
    _running = None


def _after_cell(result: object) -> None:
    if _running is None:
        return
    digest = hashlib.sha1(str(getattr(result.info, "raw_cell", "")).encode()).hexdigest()
    cells = _failed.setdefault(_running, set())
    if result.success:
        cells.discard(digest)
    else:
        cells.add(digest)


# What a test cell's failure says.

def uses(exercise: str, namespace: dict) -> list[str]:
    """The other tested exercises that `exercise`'s code refers to, directly or through helpers."""
    return refers_to(exercise, namespace, _failed)


def refers_to(exercise: str, namespace: dict, tested: object) -> list[str]:
    """Those of `tested` (names) that `exercise`'s code refers to, directly or through the helpers it calls.

    The grader asks the graded kernel this (`probe`), whose namespace holds the student's code, with
    the exercises whose tests it has judged so far.
    """
    seen, found, todo = {exercise}, [], [exercise]
    while todo:
        for name in sorted(_global_names(namespace.get(todo.pop()))):
            if name in seen or name not in namespace:
                continue
            seen.add(name)
            if name in tested:
                found.append(name)
            if _written_in_a_cell(namespace[name]):
                todo.append(name)
    return found


def _codes(obj: object) -> Iterator[types.CodeType]:
    if isinstance(obj, type):
        for value in vars(obj).values():
            value = getattr(value, "__func__", value)  # staticmethod, classmethod
            if isinstance(value, property):
                yield from (f.__code__ for f in (value.fget, value.fset) if f is not None)
            elif isinstance(value, types.FunctionType):
                yield value.__code__
    elif isinstance(obj, types.FunctionType):
        yield obj.__code__


def _global_names(obj: object) -> set[str]:
    names, stack = set(), list(_codes(obj))
    while stack:
        code = stack.pop()
        names.update(code.co_names)
        stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return names


def _written_in_a_cell(obj: object) -> bool:
    return any(_is_cell_file(code.co_filename) for code in _codes(obj))


def _is_cell_file(filename: str) -> bool:
    """A file IPython made for a cell (ipykernel: /tmp/ipykernel_<pid>/<hash>.py; IPython: <ipython-input-...>)."""
    return filename.startswith("<ipython-input-") or re.search(r"ipykernel_\d+[/\\]\d+\.py$", filename) is not None


def _frames(tb: types.TracebackType | None) -> list[types.TracebackType]:
    out = []
    while tb is not None:
        out.append(tb)
        tb = tb.tb_next
    return out


def _hidden(tb: types.TracebackType) -> bool:
    filename = tb.tb_frame.f_code.co_filename
    return any(filename.endswith(part) for part in _HIDDEN_FILES)


def _cell_frames(tb: types.TracebackType | None) -> list[types.TracebackType]:
    """The frames of `tb` that run code of a notebook cell, outermost first."""
    return [f for f in _frames(tb) if _is_cell_file(f.tb_frame.f_code.co_filename)]


def student_frame(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The innermost frame of a cell that is not a test: the student's code (or a provided cell it called)."""
    cells = _cell_frames(tb)
    if not cells:
        return None
    tests = set(_test_files)
    if cells[0].tb_frame.f_code.co_name == "<module>":  # the cell that ran (absent when checks.call caught it)
        tests.add(cells[0].tb_frame.f_code.co_filename)
    theirs = [f for f in cells if f.tb_frame.f_code.co_filename not in tests]
    return theirs[-1] if theirs else None


def student_line(frame: types.TracebackType) -> str:
    """ "in LayerNorm.forward, line 7 of its cell: `return x / std`" for a frame of a cell."""
    code = frame.tb_frame.f_code
    text = linecache.getline(code.co_filename, frame.tb_lineno).strip()
    where = f"in {_qualname(code)}" if code.co_name != "<module>" else "at the top level of a cell"
    return f"{where}, line {frame.tb_lineno} of its cell: `{text}`" if text else f"{where}, line {frame.tb_lineno}"


def _qualname(code: types.CodeType) -> str:
    return getattr(code, "co_qualname", code.co_name)


def raised_message(error: BaseException, tb: types.TracebackType | None) -> str | None:
    """What to say about an exception raised in the student's code, or None when it did not come from there.

    An exception raised in the graded kernel while the grader judged a test (see `probe`) carries
    the line the kernel traced there (`student_line`, `owner`) instead of frames.
    """
    frame = student_frame(tb)
    line, owner = getattr(error, "student_line", None), getattr(error, "owner", None)
    if frame is None and not line:
        return None
    if frame is not None:
        line, owner = student_line(frame), _qualname(frame.tb_frame.f_code)
    said = str(error).strip().rstrip(".")
    if isinstance(error, NotImplementedError):
        return f"{str(owner).split('.')[0]} is not answered yet: its answer cell still raises NotImplementedError"
    hint = ""
    if isinstance(error, RuntimeError) and re.search(r"\bsize\b|\bshape\b|dimension", said):
        hint = (" Print the shapes of the tensors on that line and compare them with the shapes the "
                "exercise's docstring gives.")
    return f"{_error_name(error)} ({said}) was raised {line}.{hint}"


def _error_name(error: BaseException) -> str:
    return getattr(error, "remote_type", "") or type(error).__name__


def where(error: BaseException) -> str | None:
    """ "in softmax, line 3 of its cell: `...`" for an exception the student's code raised, else None."""
    frame = student_frame(error.__traceback__)
    return student_line(frame) if frame is not None else getattr(error, "student_line", None)


def broken_dependency(exercise: str, namespace: dict) -> str | None:
    """The first exercise `exercise` uses whose test fails above, if any."""
    return next((name for name in uses(exercise, namespace) if failing(name)), None)


def test_message(exercise: str, error: BaseException, tb: types.TracebackType | None, broken: str | None) -> str:
    """The one message a failing test of `exercise` shows (see the module docstring); `broken` is
    `broken_dependency(exercise, ...)`, which the caller also needs."""
    if broken is not None:
        return (f"{exercise} uses {broken}, whose test fails above: fix {broken} first, then run this test "
                "again (this test's own hints would point at the wrong code).")
    raised = raised_message(error, tb)
    if raised is not None:
        return raised if isinstance(error, NotImplementedError) else f"Testing {exercise}: {raised}"
    return str(error)


def _show(shell: object, etype: type, value: BaseException, tb: types.TracebackType, tb_offset: int | None = None):
    """IPython's custom exception handler: display the traceback and return nothing (see the module docstring)."""
    if _running is not None:
        stb = _test_failure(shell, etype, value, tb)
    else:
        stb = shell.InteractiveTB.structured_traceback(etype, value, _without_hidden(tb), tb_offset=0)
    shell._showtraceback(etype, value, stb)
    return None


def _test_failure(shell: object, etype: type, value: BaseException, tb: types.TracebackType) -> list[str]:
    broken = broken_dependency(_running, shell.user_ns)
    message = test_message(_running, value, tb, broken)
    lines = [f"Test of {_running} failed."]
    cells = _cell_frames(tb)
    # Never show a graded test's source (it may be a hidden test), nor a line whose hint a traced failure overrides.
    if cells and not _grading and broken is None:
        code = cells[0].tb_frame.f_code
        text = linecache.getline(code.co_filename, cells[0].tb_lineno).strip()
        lines.append(f"At line {cells[0].tb_lineno} of the test cell: {text}")
    name = etype.__name__ if message == str(value) else "AssertionError"
    lines.append(f"{name}: {message}")
    return lines


def _without_hidden(tb: types.TracebackType | None) -> types.TracebackType | None:
    """`tb` without hidden frames (the innermost frame always stays: it is where the error is)."""
    frames = _frames(tb)
    kept = [f for i, f in enumerate(frames) if i == len(frames) - 1 or not _hidden(f)]
    rebuilt = None
    for frame in reversed(kept):
        rebuilt = types.TracebackType(rebuilt, frame.tb_frame, frame.tb_lasti, frame.tb_lineno)
    return rebuilt
