"""The data the graded kernel and the grader exchange while a test cell is judged: values, never code.

When a notebook is graded, its test cells run in the grader's own process and reach the student's
objects in the kernel through `probe` (kernel side) and `course_utils.grader.judge.verdicts`
(grader side). Everything that crosses between them is written here as JSON: numbers, strings,
containers, tensors (dtype, shape and raw bytes), dtypes, devices, torch generators' states, and
*references* to objects that stay where they are (a student's module, a provided function). The
grader decodes what the kernel sends without ever running code the kernel chose: no pickle, no
class built from a name the kernel picked, sizes checked before anything is allocated.

Both sides import this module; it imports torch and the standard library only.
"""
from __future__ import annotations

import base64
import math
from collections.abc import Callable
from typing import Any

import torch

# Dtypes a tensor may have on the wire, by name. Anything else (quantized, sparse, nested) is not data.
DTYPES = {str(d).removeprefix("torch."): d for d in (
    torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.complex64, torch.complex128,
    torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool)}
MAX_DEPTH = 64            # nesting of containers
MAX_ITEMS = 100_000       # elements of one container
MAX_TEXT = 1_000_000      # characters of one string
MAX_DIMS = 16


class WireError(ValueError):
    """What arrived is not data this format describes (a malformed or oversized reply)."""


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _dtype(name: object) -> torch.dtype:
    if not isinstance(name, str) or name not in DTYPES:
        raise WireError(f"not a dtype this course exchanges: {name!r}")
    return DTYPES[name]


# torch's methods as they were when the notebook's setup cell imported this module, before any
# answer ran: the kernel writes the student's tensors with these, whatever an answer replaced later.
_DETACH, _TO, _CONTIGUOUS, _RESHAPE, _VIEW, _NUMPY, _NUMEL = (
    torch.Tensor.detach, torch.Tensor.to, torch.Tensor.contiguous, torch.Tensor.reshape, torch.Tensor.view,
    torch.Tensor.numpy, torch.Tensor.numel)


def tensor_bytes(tensor: torch.Tensor) -> bytes:
    """The raw bytes of a plain, dense tensor (any dtype above), in C order, on the CPU."""
    flat = _RESHAPE(_CONTIGUOUS(_TO(_DETACH(tensor), "cpu")), -1)
    if flat.dtype == torch.bool:
        flat = _TO(flat, torch.uint8)
    return _NUMPY(_VIEW(flat, torch.uint8)).tobytes() if _NUMEL(flat) else b""


def tensor_from(payload: dict, limit: int) -> torch.Tensor:
    """The CPU tensor a payload describes, its size checked against `limit` bytes before it is made."""
    dtype = _dtype(payload.get("dtype"))
    shape = payload.get("shape")
    if not isinstance(shape, list) or len(shape) > MAX_DIMS or not all(isinstance(n, int) and n >= 0 for n in shape):
        raise WireError("a tensor's shape is not a list of sizes")
    count = math.prod(shape)
    size = count * torch.empty((), dtype=dtype).element_size()
    if size > limit:
        raise WireError(f"a tensor of {size} bytes is over the grader's limit of {limit}")
    raw = base64.b64decode(payload.get("data", ""), validate=True)
    if len(raw) != size:
        raise WireError("a tensor's bytes do not match its shape and dtype")
    if not count:
        return torch.empty(shape, dtype=dtype)
    storage_dtype = torch.uint8 if dtype == torch.bool else dtype
    flat = torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(storage_dtype)
    return (flat.to(torch.bool) if dtype == torch.bool else flat).reshape(shape)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def generator_state(generator: torch.Generator) -> dict:
    return {"t": "generator", "device": str(generator.device), "state": b64(tensor_bytes(generator.get_state()))}


def state_tensor(text: object, limit: int = 1 << 20) -> torch.Tensor:
    """A generator's or the global RNG's state (uint8 bytes), as sent."""
    if not isinstance(text, str):
        raise WireError("an RNG state is not text")
    raw = base64.b64decode(text, validate=True)
    if len(raw) > limit:
        raise WireError("an RNG state is too large")
    return torch.frombuffer(bytearray(raw), dtype=torch.uint8).clone() if raw else torch.empty(0, dtype=torch.uint8)


class Encoder:
    """Writes a value as JSON-ready data. `reference(obj)` -> {"t": "ref", ...} for what is not data;
    `tensor(obj)` -> extra fields for a tensor (its handle, its gradient) where the side keeps them."""

    def __init__(self, reference: Callable[[object], dict], tensor: Callable[[torch.Tensor], dict] | None = None,
                 limit: int = 256 << 20) -> None:
        self.reference, self.tensor_extra, self.limit, self.used = reference, tensor, limit, 0

    def __call__(self, value: object, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise WireError("a value nested too deeply")
        kind = type(value)
        if value is None or kind is bool or kind is str and len(value) <= MAX_TEXT:
            return value
        if kind is int:
            return value if abs(value) < 1 << 62 else {"t": "bigint", "v": str(value)}
        if kind is float:
            return value if math.isfinite(value) else {"t": "float", "v": repr(value)}
        if kind is str:
            return {"t": "text", "v": value[:MAX_TEXT], "cut": len(value)}
        if kind in (list, tuple, set, frozenset, dict):
            if len(value) > MAX_ITEMS:
                raise WireError(f"a {kind.__name__} of {len(value)} items is over the limit of {MAX_ITEMS}")
            if kind is dict:
                return {"t": "dict", "v": [[self(k, depth + 1), self(v, depth + 1)] for k, v in value.items()]}
            return {"t": kind.__name__, "v": [self(v, depth + 1) for v in value]}
        if kind is complex:
            return {"t": "complex", "v": [repr(value.real), repr(value.imag)]}
        if isinstance(value, torch.Tensor) and not value.is_sparse and value.layout == torch.strided \
                and value.dtype in DTYPES.values():
            return self.tensor(value)
        if kind is torch.Size:
            return {"t": "size", "v": list(value)}
        if kind is torch.dtype:
            return {"t": "dtype", "v": dtype_name(value)}
        if kind is torch.device:
            return {"t": "device", "v": str(value)}
        if kind is torch.Generator:
            return generator_state(value)
        if kind is slice:
            return {"t": "slice", "v": [self(value.start, depth + 1), self(value.stop, depth + 1),
                                        self(value.step, depth + 1)]}
        if value is Ellipsis:
            return {"t": "ellipsis"}
        if kind is range:
            return {"t": "range", "v": [value.start, value.stop, value.step]}
        scalar = _numpy_scalar(value)
        if scalar is not None:
            return scalar
        return self.reference(value)

    def tensor(self, value: torch.Tensor) -> dict:
        size = 0 if value.device.type == "meta" else value.numel() * value.element_size()
        self.used += size
        if self.used > self.limit:
            raise WireError(f"over {self.limit >> 20} MB of tensors in one message")
        out = {"t": "tensor", "dtype": dtype_name(value.dtype), "shape": list(value.shape),
               "device": str(value.device), "rg": bool(value.requires_grad),
               "data": "" if value.device.type == "meta" else b64(tensor_bytes(value)),
               "cls": _qualified(type(value))}
        if self.tensor_extra is not None:
            out.update(self.tensor_extra(value))
        return out


def _numpy_scalar(value: object) -> dict | None:
    module = type(value).__module__
    if module != "numpy":
        return None
    import numpy as np

    if isinstance(value, np.ndarray) and value.dtype.kind in "biufc" and value.dtype.hasobject is False:
        return {"t": "ndarray", "dtype": value.dtype.str, "shape": list(value.shape),
                "data": b64(np.ascontiguousarray(value).tobytes())}
    if isinstance(value, np.generic) and value.dtype.kind in "biufc":
        return {"t": "npscalar", "dtype": value.dtype.str, "data": b64(value.tobytes())}
    return None


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class Decoder:
    """Reads what `Encoder` wrote. `reference(payload)` makes the side's object for a reference;
    `tensor(tensor, payload)` finishes a decoded tensor (its class, gradient, handle)."""

    def __init__(self, reference: Callable[[dict], object],
                 tensor: Callable[[torch.Tensor, dict], object] | None = None, limit: int = 256 << 20) -> None:
        self.reference, self.tensor_hook, self.limit, self.used = reference, tensor, limit, 0

    def __call__(self, data: Any, depth: int = 0) -> Any:
        if depth > MAX_DEPTH:
            raise WireError("a value nested too deeply")
        if data is None or isinstance(data, (bool, int, float, str)):
            return data
        if isinstance(data, list):
            raise WireError("a bare list on the wire")
        if not isinstance(data, dict):
            raise WireError(f"not data: {type(data).__name__}")
        kind = data.get("t")
        items = data.get("v")
        if kind in ("list", "tuple", "set", "frozenset", "dict", "iter"):
            if not isinstance(items, list) or len(items) > MAX_ITEMS:
                raise WireError(f"a malformed {kind}")
            if kind == "dict":
                if not all(isinstance(pair, list) and len(pair) == 2 for pair in items):
                    raise WireError("a malformed dict")
                return {self._key(k, depth): self(v, depth + 1) for k, v in items}
            values = [self(v, depth + 1) for v in items]
            return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset, "iter": iter}[kind](values)
        if kind == "tensor":
            return self.tensor(data)
        if kind == "ref":
            return self.reference(data)
        if kind == "bigint":
            return int(str(items)[:400])
        if kind == "float":
            return float(items) if items in ("nan", "inf", "-inf") else _fail("a malformed float")
        if kind == "text":
            return str(items)[:MAX_TEXT]
        if kind == "complex":
            return complex(float(items[0]), float(items[1]))
        if kind == "size":
            return torch.Size([int(n) for n in items])
        if kind == "dtype":
            return _dtype(items)
        if kind == "device":
            return torch.device(str(items))
        if kind == "generator":
            generator = torch.Generator(device=torch.device(str(data.get("device", "cpu"))))
            generator.set_state(state_tensor(data.get("state")))
            return generator
        if kind == "slice":
            return slice(*(self(v, depth + 1) for v in items))
        if kind == "ellipsis":
            return Ellipsis
        if kind == "range":
            return range(*(int(v) for v in items))
        if kind in ("ndarray", "npscalar"):
            return self._numpy(data)
        raise WireError(f"unknown kind of value {kind!r}")

    def _key(self, key: Any, depth: int) -> Any:
        value = self(key, depth + 1)
        try:
            hash(value)
        except TypeError:
            raise WireError("a dict key that cannot be hashed") from None
        return value

    def tensor(self, data: dict) -> object:
        if data.get("device") == "meta":   # a tensor with a shape and a dtype and no values
            shape = data.get("shape")
            if not isinstance(shape, list) or not all(isinstance(n, int) and n >= 0 for n in shape):
                raise WireError("a tensor's shape is not a list of sizes")
            tensor = torch.empty(shape, dtype=_dtype(data.get("dtype")), device="meta")
            return self.tensor_hook(tensor, data) if self.tensor_hook is not None else tensor
        remaining = self.limit - self.used
        tensor = tensor_from(data, remaining)
        self.used += tensor.numel() * tensor.element_size()
        device = str(data.get("device", "cpu"))
        if device != "cpu":
            tensor = tensor.to(device)
        if data.get("rg") and tensor.dtype.is_floating_point or data.get("rg") and tensor.is_complex():
            tensor.requires_grad_(True)
        return self.tensor_hook(tensor, data) if self.tensor_hook is not None else tensor

    def _numpy(self, data: dict) -> object:
        import numpy as np

        dtype = np.dtype(str(data.get("dtype")))
        if dtype.kind not in "biufc" or dtype.hasobject:
            raise WireError("not a numeric numpy dtype")
        raw = base64.b64decode(data.get("data", ""), validate=True)
        if len(raw) > self.limit - self.used:
            raise WireError("an array over the grader's limit")
        self.used += len(raw)
        if data["t"] == "npscalar":
            return np.frombuffer(raw, dtype=dtype)[0]
        shape = [int(n) for n in data.get("shape", [])]
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()


def _fail(message: str) -> None:
    raise WireError(message)
