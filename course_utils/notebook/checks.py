"""Checks used by the notebooks' test cells.

Their messages teach: they name the property that failed and hint at the usual cause,
and never print the values the test expected (which would hand out the answer).
They compare through functions captured in `course_utils.trusted`, so answer cells
that monkeypatch torch cannot make a check pass.

A test cell runs in two places. In the student's kernel (running the notebook, Validate) it runs
as written. When the notebook is graded it runs in the grader's own process, which reaches the
student's objects in the graded kernel through `course_utils.grader.judge.verdicts` and decides the
verdict there; the grader then sets `_remote` here (its own copy of this module: the student's
kernel never has one) and three functions behave accordingly:

- `generator(seed)`: the inputs a test draws; when graded, the seed is mixed with a secret of the
  course and the submission, so that inputs are drawn per submission;
- `in_kernel(obj)`: a provided function or class that must run where the student's code runs (a
  model handed to `greedy_decode`, a context that watches a call); here, the object itself;
- `forbidden(...)`: the exercise's forbidden shortcuts (`shortcuts`), recognised by identity at
  run time, in the kernel whatever name the student's code used.
"""
from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from course_utils.notebook import probe, shortcuts, tracing, trusted  # noqa: F401  (probe: see below)

# `probe` answers the grader when the notebook is graded; importing it here, in the setup cell,
# captures what it uses of torch before any answer runs (as `trusted` does for the tests).

if TYPE_CHECKING:
    import torch

# Set by the grader in its own process while it judges a test cell (never in a student's kernel):
# the link to the graded kernel, and the secret that makes each submission's inputs its own.
_remote = None
_salt: bytes | None = None


def generator(seed: int) -> torch.Generator:
    """A torch.Generator for a test's inputs: seeded with `seed` here, with `seed` and the submission's
    secret when graded (so that a submission cannot be fitted to fixed inputs)."""
    import hashlib

    import torch

    if _salt is not None:
        seed = int.from_bytes(hashlib.sha256(_salt + str(seed).encode()).digest()[:7], "big")
    return torch.Generator().manual_seed(seed)


def in_kernel(obj: object) -> object:
    """`obj` (a function or class of a provided cell, or of torch or functools) as the kernel has it.

    In the student's kernel that is `obj` itself. When the grader judges the test, calling the result
    runs the kernel's own `obj` there and returns what it returns (data, or the kernel's object):
    use it for what the student's code must be handed (a model, a layer factory, a context that
    watches a call), and build the test's own reference without it.
    """
    if _remote is None:
        return obj
    return _remote.kernel_name(obj)


def each(function: Callable, calls: list[tuple]) -> list:
    """`[function(*args) for args in calls]`: many calls of a student's function on data.

    When graded, the calls are made in the kernel one after another as one request, instead of a
    round trip each (a test that tries a schedule at 40 steps: 40 round trips). The first exception
    stops the rest, as in the loop. Arguments and results must be data (numbers, strings, tensors).
    """
    calls = [tuple(args) for args in calls]
    if _remote is None:
        return _each(function, calls)
    results = in_kernel(_each)(function, calls)
    expect(isinstance(results, list) and len(results) == len(calls),
           f"{len(calls)} calls of the function did not give {len(calls)} results.")
    return results


def _each(function: Callable, calls: list[tuple]) -> list:
    return [function(*args) for args in calls]


@contextlib.contextmanager
def forbidden(*names: str, message: str) -> Iterator[None]:
    """Fail with `message` if the student's code calls one of `names` (groups of `shortcuts`, or dotted
    paths) inside the block, however it reaches it (an alias, `trusted`, torch's own modules calling it).

    Such a call raises inside the student's code; the block then fails with `message`, also when the
    student's code caught that exception. Keep the test's own reference computations outside the block.
    """
    used: list[str] = []
    watch = _remote.forbidden(shortcuts.paths(*names)) if _remote is not None else \
        shortcuts.watching(names, used)
    try:
        with watch as found:
            if found is not None:
                used = found
            yield
    except Exception:
        if used:
            raise AssertionError(message) from None
        raise
    if used:
        raise AssertionError(message)


def testing(exercise: str) -> None:
    """The first line of every test cell: what it tests, so that a failure can be traced to its cause.

    A later test whose exercise uses this one then says "fix {exercise} first" instead of its
    own hints, and an exception from the student's code names their line (see `tracing`).
    """
    tracing.testing(exercise)


def expect(condition: object, message: str) -> None:
    """Fail with a teaching message when `condition` is false."""
    if not condition:
        raise AssertionError(message)


def expect_tensor(value: object, what: str) -> None:
    """`value` must be a plain torch.Tensor (not a list, array or Tensor subclass)."""
    kind = type(value)
    expect(kind is trusted.Tensor,
           f"{what} must be a torch.Tensor, but it is a {kind.__module__}.{kind.__qualname__}. "
           "Build the result with torch operations and return the tensor itself.")


def expect_shape(value: object, shape: tuple[int, ...], what: str, hint: str = "") -> None:
    """`value` must be a tensor of exactly `shape` (shapes are part of the spec, so shown)."""
    expect_tensor(value, what)
    actual = tuple(value.shape)
    expect(actual == tuple(shape),
           f"{what} has shape {actual}, but its shape should be {tuple(shape)}. {hint}".rstrip())


def expect_dtype(value: object, dtype: torch.dtype, what: str) -> None:
    expect_tensor(value, what)
    expect(value.dtype == dtype,
           f"{what} has dtype {value.dtype}, but it should keep the input's dtype {dtype}. "
           "Avoid creating tensors without dtype=... taken from the inputs.")


def expect_device(value: object, device: torch.device, what: str) -> None:
    expect_tensor(value, what)
    expect(value.device == device,
           f"{what} is on {value.device}, but the inputs were on {device}. "
           "Create new tensors with device=... taken from the inputs.")


def expect_finite(value: object, what: str, hint: str = "") -> None:
    expect_tensor(value, what)
    bad = int((~trusted.isfinite(value)).sum())
    expect(bad == 0, f"{what} contains {bad} NaN or infinite entries. {hint}".rstrip())


def _default_tolerance(dtype: torch.dtype) -> tuple[float, float]:
    import torch

    if dtype in (torch.float16, torch.bfloat16):
        return 2e-2, 2e-2
    if dtype == torch.float64:
        return 1e-9, 1e-7
    return 1e-5, 1e-4


def expect_close(actual: object, reference: torch.Tensor, what: str, hint: str = "", atol: float | None = None,
                 rtol: float | None = None) -> None:
    """`actual` must match `reference` in type, shape, dtype, device and value.

    On a mismatch the message says how many entries differ and by how much at most,
    never what the reference values are.
    """
    expect_shape(actual, reference.shape, what, hint)
    expect_dtype(actual, reference.dtype, what)
    expect_device(actual, reference.device, what)
    default_atol, default_rtol = _default_tolerance(reference.dtype)
    atol = default_atol if atol is None else atol
    rtol = default_rtol if rtol is None else rtol
    a, r = actual.detach().double(), reference.detach().double()
    close = trusted.isclose(a, r, rtol=rtol, atol=atol, equal_nan=True)
    wrong = int((~close).sum())
    if wrong:
        diff = (a - r).abs()
        worst = float(diff[trusted.isfinite(diff)].max()) if bool(trusted.isfinite(diff).any()) else float("nan")
        first = _first_index((~close).reshape(-1).tolist(), tuple(close.shape))
        raise AssertionError(
            f"{what} is wrong at {wrong} of {close.numel()} entries, the first at {first} "
            f"(largest difference {worst:.2g}). {hint}".rstrip())


def _first_index(wrong: list[bool], shape: tuple[int, ...]) -> str:
    """Where the first True of a flattened `wrong` sits in `shape`, as "index [b, i, j]": a place, never a value."""
    flat = wrong.index(True)
    index = []
    for size in reversed(shape):
        index.append(flat % size)
        flat //= size
    return f"index [{', '.join(map(str, reversed(index)))}]"


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Run student code without letting it write to stderr.

    nbgrader gives 0 points to a test cell that writes anything to stderr, so a correct
    answer that happens to warn or print a debug line to stderr would lose its marks.
    Warnings are ignored and both Python's and the process's stderr are swallowed.
    """
    sys.stderr.flush()
    saved_fd = None
    sink = tempfile.TemporaryFile()
    try:
        saved_fd = os.dup(2)
        os.dup2(sink.fileno(), 2)
    except OSError:  # no real fd 2 (some embedded interpreters): Python-level only
        saved_fd = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with contextlib.redirect_stderr(io.StringIO()):
                yield
    finally:
        if saved_fd is not None:
            os.dup2(saved_fd, 2)
            os.close(saved_fd)
        sink.close()


def call(what: str, function: Callable, *args: object, hint: str = "") -> object:
    """Call a student's `function(*args)` quietly (see `quiet`) and return what it returns.

    An exception it raises fails the test with a message naming `what` was called, the
    exception and `hint`, instead of ending the test cell with the student's traceback.
    """
    try:
        with quiet():
            return function(*args)
    except Exception as error:  # noqa: BLE001  (any bug of the answer is the student's to see)
        said = str(error).rstrip(". ")  # torch's own messages often end with a full stop already
        line = tracing.where(error)
        at = f" ({line})" if line else ""
        name = getattr(error, "remote_type", "") or type(error).__name__
        raise AssertionError(f"{what} raised {name}: {said}{at}. {hint}".rstrip(". ") + ".") from None


def flat_bools(values: object) -> list[bool]:
    """The entries of a tensor (any dtype or device) or of nested lists, as one flat list of bools."""
    if isinstance(values, (list, tuple)):
        return [b for item in values for b in flat_bools(item)]
    if isinstance(values, trusted.Tensor):
        return [bool(v) for v in values.detach().cpu().reshape(-1).tolist()]
    return [bool(values)]


def expect_mask(mask: object, reference: object, what: str, hint: str) -> None:
    """`mask` (already shape- and dtype-checked) equals `reference` (nested lists or a tensor) everywhere.

    The message counts the wrong entries and never shows them; a mask wrong everywhere is
    named as inverted (in this course True means "may attend").
    """
    got, ref = flat_bools(mask), flat_bools(reference)
    wrong = sum(g != r for g, r in zip(got, ref))
    if wrong and wrong == len(ref):
        raise AssertionError(f"{what} is inverted everywhere: in this course True means 'may attend' "
                             "(the opposite of nn.MultiheadAttention's key_padding_mask).")
    if wrong:
        shape = tuple(mask.shape) if isinstance(mask, trusted.Tensor) else (len(ref),)
        first = _first_index([g != r for g, r in zip(got, ref)], shape)
        expect(False, f"{what} is wrong at {wrong} of {len(ref)} entries, the first at {first}. {hint}")


def matches(actual: object, reference: torch.Tensor, atol: float | None = None, rtol: float | None = None) -> bool:
    """Whether `actual` is a plain tensor with `reference`'s shape and values (quiet: no message, no raise)."""
    if type(actual) is not trusted.Tensor or tuple(actual.shape) != tuple(reference.shape):
        return False
    default_atol, default_rtol = _default_tolerance(reference.dtype)
    a, r = actual.detach().double().cpu(), reference.detach().double().cpu()
    return bool(trusted.isclose(a, r, rtol=default_rtol if rtol is None else rtol,
                                atol=default_atol if atol is None else atol, equal_nan=True).all())


def hint_for(actual: object, mistakes: list[tuple[torch.Tensor, str]], otherwise: str = "") -> str:
    """The hint of the first `(output, hint)` pair whose output `actual` matches, else `otherwise`.

    `output` is what a known mistake would return on the test's inputs: a cause is named only
    when it has been detected, never guessed.
    """
    return next((hint for output, hint in mistakes if matches(actual, output)), otherwise)
