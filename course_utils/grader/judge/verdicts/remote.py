"""What the grader holds of the kernel's objects while a test cell runs in the grader.

A test cell that runs in the grader (see `verdicts.cell`) reads the student's names as they are in
the graded kernel: data comes across as values (tensors, numbers, lists), everything else as a
`Remote`, a stand-in whose every use (a call, an attribute, an item, `with`, `len`, iteration, an
`isinstance` against it) is a request to the kernel (`verdicts.link`). A test written for the
student's kernel therefore runs unchanged here: `mha = MultiHeadAttention(12, 3)` builds the
module in the kernel, `mha(x, x, x)` runs it there and returns the output as a tensor,
`isinstance(mha.w_q, nn.Linear)` holds when the kernel's object is one.

`RemoteError` is an exception the student's code raised in the kernel, rebuilt as one of Python's
own exception classes (never a class the kernel names), with the student's line the kernel traced.
`ForeignTensor` is what a tensor of a class of the student's own becomes, so that `type(x) is
torch.Tensor` fails here as it would there.
"""
from __future__ import annotations

import builtins
import importlib
import inspect
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from course_utils.grader.judge.verdicts.link import Link

# Where a class the kernel names may be looked up here (to answer isinstance): Python's and torch's.
TRUSTED_MODULES = ("builtins", "torch", "collections", "numbers", "abc", "typing", "numpy")
# Dunder attributes a test may read of a kernel object; any other is Python's machinery probing it here.
READABLE_DUNDERS = frozenset({"__name__", "__qualname__", "__module__", "__doc__", "__signature__", "__wrapped__"})


class Remote:
    """An object that stays in the graded kernel; every use of it is a request to the kernel."""

    __slots__ = ("_link", "_id", "_mro", "_callable", "_kernel_class", "__weakref__")

    def __init__(self, link: Link, number: int, mro: list, is_callable: bool, kernel_class: list | None) -> None:
        object.__setattr__(self, "_link", link)
        object.__setattr__(self, "_id", number)
        object.__setattr__(self, "_mro", mro)
        object.__setattr__(self, "_callable", is_callable)
        object.__setattr__(self, "_kernel_class", kernel_class)

    @property
    def __class__(self) -> type:   # isinstance(remote, nn.Linear) asks this
        return self._link.local_class(self._mro) or Remote

    def __getattr__(self, name: str) -> object:
        if name.startswith("__") and name.endswith("__") and name not in READABLE_DUNDERS:
            raise AttributeError(name)
        if name == "__signature__":
            return _signature(self._link.getattr(self, name))
        return self._link.getattr(self, name)

    def __setattr__(self, name: str, value: object) -> None:
        self._link.setattr(self, name, value)

    def __delattr__(self, name: str) -> None:
        self._link.delattr(self, name)

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self._link.call(self, args, kwargs)

    def __getitem__(self, key: object) -> object:
        return self._link.item("getitem", self, [key])

    def __setitem__(self, key: object, value: object) -> None:
        self._link.item("setitem", self, [key, value])

    def __delitem__(self, key: object) -> None:
        self._link.item("delitem", self, [key])

    def __len__(self) -> int:
        return self._link.simple("len", self)

    def __iter__(self):  # noqa: ANN204
        return iter(self._link.simple("iter", self))

    def __contains__(self, item: object) -> bool:
        return self._link.contains(self, item)

    def __bool__(self) -> bool:
        return self._link.simple("bool", self)

    def __enter__(self) -> object:
        return self._link.enter(self)

    def __exit__(self, kind: type | None, error: BaseException | None, traceback: object) -> bool:
        return bool(self._link.exit(self, error is not None))

    def __instancecheck__(self, instance: object) -> bool:
        return self._link.isinstance(instance, self)

    def __repr__(self) -> str:
        name = ".".join(self._kernel_class) if self._kernel_class else self._mro[0][1] if self._mro else "object"
        return f"<{name} in the graded kernel>"

    __str__ = __repr__


def _signature(parameters: object) -> inspect.Signature:
    """The kernel's description of a callable's parameters, as an inspect.Signature."""
    if not isinstance(parameters, list):
        raise TypeError("no signature")
    made = []
    for name, kind, has_default, default in parameters:
        made.append(inspect.Parameter(str(name), inspect._ParameterKind(int(kind)),
                                      default=default if has_default else inspect.Parameter.empty))
    return inspect.Signature(made)


def trusted_class(module: str, qualname: str) -> type | None:
    """Python's or torch's own class at (module, qualname), imported here; None for any other."""
    if not any(module == m or module.startswith(m + ".") for m in TRUSTED_MODULES):
        return None
    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError):
        return None
    return obj if isinstance(obj, type) else None


class RemoteError(Exception):
    """An exception raised by the student's code in the kernel (its class is one of Python's own)."""

    message = ""
    student_line: str | None = None
    owner: str | None = None
    remote_type = ""

    def __str__(self) -> str:
        return self.message


_ERROR_CLASSES: dict[tuple[str, type], type] = {}


def remote_error(info: object) -> RemoteError:
    """The exception a kernel's error reply describes; its class named as the kernel named it, its base
    the nearest of Python's own exception classes in the kernel's class hierarchy."""
    info = info if isinstance(info, dict) else {}
    name = str(info.get("type", "Exception"))[:100] or "Exception"
    base: type = Exception
    for entry in info.get("mro", []) if isinstance(info.get("mro"), list) else []:
        if isinstance(entry, list) and len(entry) == 2 and entry[0] == "builtins":
            found = getattr(builtins, str(entry[1]), None)
            if isinstance(found, type) and issubclass(found, Exception):
                base = found
                break
    key = (name if name.isidentifier() else "RemoteException", base)
    if key not in _ERROR_CLASSES:
        _ERROR_CLASSES[key] = type(key[0], (RemoteError, base), {"__module__": "builtins"})
    error = _ERROR_CLASSES[key]()
    error.message = str(info.get("message", ""))[:4000]
    error.args = (error.message,)
    error.remote_type = name
    student = info.get("student") if isinstance(info.get("student"), dict) else None
    if student:
        error.student_line = str(student.get("line", ""))[:1000] or None
        error.owner = str(student.get("owner", ""))[:200] or None
    return error


class ForeignTensor(torch.Tensor):
    """A tensor the student's code returned as an instance of a class of its own (a subclass of torch.Tensor)."""

    kernel_class = ""


def foreign(tensor: torch.Tensor, kernel_class: str) -> torch.Tensor:
    """`tensor` as a ForeignTensor whose class name is the kernel's (so that messages name it)."""
    module, _, name = kernel_class.rpartition(".")
    cls = type(name if name.isidentifier() else "ForeignTensor", (ForeignTensor,),
               {"__module__": module or "kernel", "kernel_class": kernel_class})
    return torch.Tensor._make_subclass(cls, tensor.detach(), tensor.requires_grad)
