"""The ready-made functions an exercise may not call, recognised by what they are, not by their name.

CURRICULUM.md: answers do not call torch's own version of the thing being taught (softmax in
`softmax`, fused attention in the attention exercises, layer norm in `LayerNorm`, sacreBLEU in
`corpus_bleu`). A test forbids a group (`checks.forbidden("attention", message=...)`) around the
student's call; any call of one of the group's functions then raises inside the student's code and
is recorded, however the student reached it: `torch.softmax`, `x.softmax`, `F.softmax`, the
notebook's `trusted.softmax`, an alias of their own, `torch.ops.aten._softmax`, or torch's own
`nn.MultiheadAttention` calling the fused function for them.

torch functions are caught with a `TorchFunctionMode`, which torch calls with the function object
itself for every function, method and operator of its public API; plain Python functions (sacreBLEU)
with a profile hook that compares code objects. Both hold the objects captured when this module was
imported, in the notebook's locked setup cell, before any answer ran. The kernel's probe and the
notebook's own test cells use it alike.
"""
from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator

import torch
from torch.overrides import TorchFunctionMode

_ATTENTION = (
    "torch.nn.functional.scaled_dot_product_attention", "torch.nn.functional.multi_head_attention_forward",
    "torch.ops.aten.scaled_dot_product_attention", "torch.ops.aten._scaled_dot_product_attention_math",
    "torch.ops.aten._scaled_dot_product_flash_attention", "torch.ops.aten._scaled_dot_product_flash_attention_for_cpu",
    "torch.ops.aten._scaled_dot_product_efficient_attention", "torch.ops.aten._scaled_dot_product_cudnn_attention",
    "torch.ops.aten._native_multi_head_attention", "torch._native_multi_head_attention",
    "torch._transformer_encoder_layer_fwd", "torch.ops.aten._transformer_encoder_layer_fwd",
)
GROUPS: dict[str, tuple[str, ...]] = {
    "softmax": (
        "torch.softmax", "torch.Tensor.softmax", "torch.nn.functional.softmax", "torch.special.softmax",
        "torch.log_softmax", "torch.Tensor.log_softmax", "torch.nn.functional.log_softmax",
        "torch.special.log_softmax", "torch.nn.functional.softmin", "torch._softmax", "torch._log_softmax",
        "torch.ops.aten.softmax", "torch.ops.aten._softmax", "torch.ops.aten.log_softmax",
        "torch.ops.aten._log_softmax", "torch.ops.aten.special_softmax", "torch.ops.aten._safe_softmax",
    ),
    "attention": _ATTENTION,
    "layer_norm": (
        "torch.nn.functional.layer_norm", "torch.layer_norm", "torch.native_layer_norm",
        "torch.nn.functional.group_norm", "torch.group_norm", "torch.nn.functional.rms_norm", "torch.rms_norm",
        "torch.ops.aten.layer_norm", "torch.ops.aten.native_layer_norm", "torch.ops.aten.group_norm",
        "torch.ops.aten.native_group_norm", "torch.ops.aten.rms_norm", "torch.ops.aten._fused_rms_norm",
    ),
    "bleu": (
        "sacrebleu.corpus_bleu", "sacrebleu.sentence_bleu", "sacrebleu.metrics.bleu.BLEU.corpus_score",
        "sacrebleu.metrics.bleu.BLEU.sentence_score", "sacrebleu.metrics.bleu.BLEU._compute_score_from_stats",
        "sacrebleu.metrics.bleu.BLEU.compute_bleu",
    ),
}


class ForbiddenCall(AssertionError):
    """Raised inside the student's code at the call of a forbidden function."""


def _resolve(path: str) -> object | None:
    """The object at a dotted path (a module, then attributes), or None where this install has none."""
    parts = path.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for name in parts[split:]:
                obj = getattr(obj, name)
        except AttributeError:
            return None
        return obj
    return None


_CAPTURED: dict[str, object] = {}


def _capture(names: tuple[str, ...]) -> None:
    for path in names:
        if path not in _CAPTURED:
            obj = _resolve(path)
            if obj is not None:
                _CAPTURED[path] = obj


# torch's now, before any answer runs; sacreBLEU's when a test first forbids it (it is imported by
# the setup cell of the one notebook that uses it, or not at all).
_capture(tuple(p for group, paths in GROUPS.items() if group != "bleu" for p in paths))


def paths(*names: str) -> tuple[str, ...]:
    """The dotted paths of groups (by name) and of single paths, in order, each once."""
    out: list[str] = []
    for name in names:
        for path in GROUPS.get(name, (name,)):
            if path not in out:
                out.append(path)
    return tuple(out)


def label(path: str) -> str:
    """How a message names a forbidden function: torch.nn.functional.softmax -> F.softmax."""
    return path.replace("torch.nn.functional.", "F.").replace("torch.nn.", "nn.")


class _Watch(TorchFunctionMode):
    def __init__(self, functions: dict[object, str], used: list[str]) -> None:
        super().__init__()
        self.functions, self.used = functions, used

    def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204 (torch's protocol)
        path = self.functions.get(func) or self.functions.get(getattr(func, "overloadpacket", None))
        if path is not None:
            self.used.append(path)
            raise ForbiddenCall(f"{label(path)} may not be used here")
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def watching(names: tuple[str, ...], used: list[str]) -> Iterator[None]:
    """While active, a call of any function in `names` (paths or groups) raises ForbiddenCall and is
    appended to `used`, whatever name reached it."""
    wanted = paths(*names)
    _capture(wanted)
    found = {path: _CAPTURED[path] for path in wanted if path in _CAPTURED}
    torch_functions = {obj: path for path, obj in found.items() if path.startswith("torch.")}
    codes = {obj.__code__: path for path, obj in found.items()
             if not path.startswith("torch.") and hasattr(obj, "__code__")}
    previous = sys.getprofile()

    def profile(frame, event, arg):  # noqa: ANN001, ANN202 (sys.setprofile's protocol)
        if event == "call" and frame.f_code in codes:
            used.append(codes[frame.f_code])
            raise ForbiddenCall(f"{label(codes[frame.f_code])} may not be used here")
        if previous is not None:
            previous(frame, event, arg)

    watch_python = bool(codes)
    if watch_python:
        sys.setprofile(profile)
    try:
        with _Watch(torch_functions, used):
            yield
    finally:
        if watch_python:
            sys.setprofile(previous)
