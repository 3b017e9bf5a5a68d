"""The grader's side of the requests a test cell makes of the graded kernel (see `probe` for the other).

A test cell judged in the grader uses the student's objects through this link: calls, attributes,
items, iteration, `with` blocks, in-place changes of the kernel's tensors, backward passes. Each is
one request on the cell's `Channel`; its reply is data, decoded here (`wire`), and it brings back:

- the global RNG's state after the call, which becomes the grader's (and the grader's goes with
  every call), so that `torch.manual_seed(0); layer(x)` draws the same dropout masks here as in one
  process; torch generators passed to a call come back advanced the same way;
- in-place changes the call made to its arguments, written into the grader's tensors;
- new values of kernel tensors the grader holds copies of (a module's weights after `load_state_dict`,
  gradients after `backward`), written into those copies;
- forbidden functions the student's code reached for (`checks.forbidden`).

Gradients cross too: a call whose outputs carry gradients returns them through a `torch.autograd`
function whose backward asks the kernel for the gradients of the call's inputs, so that
`(out * upstream).sum().backward()` here fills `x.grad` here and `mha.w_q.weight.grad` in the kernel.

While a cell runs, in-place methods on copies of kernel tensors (`p.copy_(w)`, `p[0] = 1`) are made
in the kernel first (a `TorchFunctionMode`), so that `with torch.no_grad(): for p in
mha.parameters(): p.copy_(...)` changes the student's module as it would in one process.
"""
from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator

import torch
from torch.overrides import TorchFunctionMode

from course_utils.grader.judge.verdicts.channel import Channel
from course_utils.grader.judge.verdicts.remote import Remote, foreign, remote_error, trusted_class
from course_utils.notebook import wire

MAX_REPLY = 256 << 20
INPLACE_DUNDERS = frozenset({"__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__",
                             "__imod__", "__ipow__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__",
                             "__imatmul__"})


class AuthoringError(TypeError):
    """A test asked for something that cannot cross into the kernel (a bug of the test, not the student's)."""


class KernelName:
    """`checks.in_kernel(obj)` here: the kernel's own object of that name (a provided function or class)."""

    def __init__(self, link: Link, module: str, qualname: str) -> None:
        self.link, self.module, self.qualname = link, module, qualname

    def __call__(self, *args: object, **kwargs: object) -> object:
        return self.link.call(self, args, kwargs)

    def __repr__(self) -> str:
        return f"<{self.qualname} in the graded kernel>"


class Link:
    """The requests one test cell makes of the kernel, through `channel`, for code running in `namespace`."""

    def __init__(self, channel: Channel, namespace: dict) -> None:
        self.channel, self.namespace = channel, namespace
        self.remotes: weakref.WeakValueDictionary[int, Remote] = weakref.WeakValueDictionary()
        self.tensors: dict[int, weakref.ref] = {}
        self.released: list[int] = []
        self.forbidding: list[tuple[tuple[str, ...], list[str]]] = []
        self.internal = 0   # >0: the link itself is writing tensors (no in-place forwarding)
        self.kernel_rng: bytes | None = None   # the global RNG state both sides last had in common
        # Attributes whose reading ran no student code (the probe says so), as last read: read again from
        # here until the next request of another kind, which may change them (a test reads `mha.w_q.weight`
        # many times between two calls; each read was a round trip and a copy of the tensor).
        self.plain: dict[tuple[int, str], object] = {}

    # -- requests

    def request(self, op: dict) -> object:
        """Send `op`; the decoded value of its reply, or the student's exception raised."""
        if op.get("op") != "getattr":
            self.plain.clear()
        if self.released:
            op["release"], self.released = self.released, []
        reply = self.channel.ask(op)
        used = reply.get("forbidden")
        if isinstance(used, list):
            for _, found in self.forbidding:
                found.extend(str(p) for p in used)
        if "error" in reply:
            self._updates(reply.get("updates"))
            raise remote_error(reply["error"])
        value = reply.get("value")
        self._updates(reply.get("updates"))
        return value

    def context(self) -> dict:
        """How the kernel runs what a request asks: grad mode, forbidden functions, and the global RNG's
        state where it is not the one both sides already share (5 KB each way otherwise)."""
        ctx: dict = {"grad": torch.is_grad_enabled()}
        state = wire.tensor_bytes(torch.get_rng_state())
        if state != self.kernel_rng:
            ctx["rng"] = wire.b64(state)
            self.kernel_rng = state
        forbid = [p for paths, _ in self.forbidding for p in paths]
        if forbid:
            ctx["forbid"] = forbid
        return ctx

    # -- what a test does with kernel objects

    def kernel_name(self, obj: object) -> KernelName:
        """checks.in_kernel(obj): the kernel's own object of `obj`'s name (module and qualified name)."""
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
            raise AuthoringError(f"checks.in_kernel needs a function or class defined at the top level of a "
                                 f"provided cell (or of torch, functools): not {obj!r}")
        return KernelName(self, module, qualname)

    def lookup(self, names: list[str]) -> dict[str, object]:
        found = self.request({"op": "lookup", "names": names})
        if not isinstance(found, dict):
            raise wire.WireError("a lookup's reply is not a mapping")
        return {str(name): self.decode(value) for name, value in found.items()}

    def getattr(self, obj: Remote, name: str) -> object:
        key = (obj._id, name)
        if key in self.plain:
            return self.plain[key]
        found = self.request({"op": "getattr", "object": obj._id, "name": name, "ctx": self.context()})
        if not isinstance(found, dict) or len(found) != 1 or not {"plain", "value"} >= found.keys():
            raise wire.WireError("an attribute's reply is not one value")
        if "value" in found:   # the student's code ran (a property, __getattr__): it may have changed anything
            self.plain.clear()
            return self.decode(found["value"])
        value = self.decode(found["plain"])
        self.plain[key] = value
        return value

    def setattr(self, obj: Remote, name: str, value: object) -> None:
        self.request({"op": "setattr", "object": obj._id, "name": name, "value": self.encode(value, []),
                      "ctx": self.context()})

    def delattr(self, obj: Remote, name: str) -> None:
        self.request({"op": "delattr", "object": obj._id, "name": name, "ctx": self.context()})

    def simple(self, op: str, obj: Remote) -> object:
        return self.decode(self.request({"op": op, "object": obj._id, "ctx": self.context()}))

    def contains(self, obj: Remote, item: object) -> bool:
        return bool(self.request({"op": "contains", "object": obj._id, "item": self.encode(item, [])}))

    def isinstance(self, value: object, cls: Remote) -> bool:
        return bool(self.request({"op": "isinstance", "value": self.encode(value, []), "class": cls._id}))

    def call(self, function: Remote | KernelName, args: tuple, kwargs: dict) -> object:
        target = self._reference(function)
        return self._run({"op": "call", "function": target}, [list(args), dict(kwargs)])

    def item(self, op: str, obj: Remote, args: list) -> object:
        return self._run({"op": op, "object": obj._id}, args)

    def enter(self, obj: Remote) -> object:
        return self._run({"op": "enter", "object": obj._id}, [])

    def exit(self, obj: Remote, failed: bool) -> object:
        return self._run({"op": "exit", "object": obj._id, "failed": failed}, [])

    def inplace(self, tensor: torch.Tensor, method: str, args: tuple, kwargs: dict) -> None:
        self._run({"op": "inplace", "object": tensor._course_kernel, "method": method}, [list(args), dict(kwargs)])

    @contextlib.contextmanager
    def forbidden(self, paths: tuple[str, ...]) -> Iterator[list[str]]:
        """While active, the kernel watches `paths` in every request; what the student reached lands in the list."""
        used: list[str] = []
        self.forbidding.append((paths, used))
        try:
            yield used
        finally:
            self.forbidding.remove((paths, used))

    # -- a call: arguments out, results, changes and gradients back

    def _run(self, op: dict, args: list) -> object:
        sent: list[torch.Tensor] = []
        op["args"] = self.encode(args, sent)
        op["ctx"] = self.context()
        reply = self.request(op)
        if not isinstance(reply, dict):
            raise wire.WireError("a call's reply is not an object")
        self.internal += 1
        try:
            if isinstance(reply.get("rng"), str):
                state = wire.state_tensor(reply["rng"])
                torch.set_rng_state(state)
                self.kernel_rng = wire.tensor_bytes(state)
            generators = [g for g in _flat(args) if isinstance(g, torch.Generator)]
            states = reply.get("generators") or []
            if len(states) != len(generators):
                raise wire.WireError("a call's reply lost track of its generators")
            for generator, state in zip(generators, states):
                generator.set_state(wire.state_tensor(state.get("state") if isinstance(state, dict) else None))
            for change in reply.get("arguments") or []:
                index = change.get("index") if isinstance(change, dict) else None
                if not isinstance(index, int) or not 0 <= index < len(sent):
                    raise wire.WireError("a change to an argument that was not sent")
                _write(sent[index], self.decode(change.get("value"), fresh=True))
        finally:
            self.internal -= 1
        outputs: list[tuple[int, torch.Tensor]] = []
        result = self.decode(reply.get("result"), sent=sent, outputs=outputs)
        call = reply.get("call")
        if outputs and isinstance(call, int) and torch.is_grad_enabled():
            result = self._bridge(call, result, outputs, [t for t in sent if t.requires_grad])
        return result

    def _bridge(self, call: int, result: object, outputs: list[tuple[int, torch.Tensor]],
                inputs: list[torch.Tensor]) -> object:
        """`result` with its gradient-carrying tensors replaced by ones whose backward is the kernel's."""
        ordered = [t for _, t in sorted(outputs, key=lambda pair: pair[0])]
        anchor = torch.zeros((), requires_grad=True)   # outputs carry gradients even when no input here does
        _Backward.apply(self, call, ordered, anchor, *inputs)   # gives `ordered` themselves their grad_fn
        return result

    def backward(self, call: int, grads: tuple, inputs: int) -> list:
        sent: list[torch.Tensor] = []
        found = self.decode(self.request({"op": "backward", "call": call, "grads": self.encode(list(grads), sent),
                                          "ctx": self.context()}))
        if not isinstance(found, list) or len(found) != inputs:
            raise wire.WireError("a backward reply does not match the call's inputs")
        return found

    # -- encoding what goes to the kernel

    def encode(self, value: object, sent: list[torch.Tensor]) -> object:
        link = self

        class _Out(wire.Encoder):
            def tensor(self, tensor: torch.Tensor) -> dict:
                number = getattr(tensor, "_course_kernel", None)
                if number is not None and tensor.is_leaf and link._live(number) is tensor:
                    return {"t": "ref", "id": number}   # the kernel's own tensor: its identity and changes hold
                sent.append(tensor)
                return super().tensor(tensor)

        return _Out(self._reference, None, MAX_REPLY)(value)

    def _reference(self, obj: object) -> dict:
        if isinstance(obj, Remote):
            if obj._link is not self:
                raise AuthoringError("a kernel object of another test cell: each test cell reads what it needs")
            return {"t": "ref", "id": obj._id}
        if isinstance(obj, KernelName):
            return {"t": "ref", "name": [obj.module, obj.qualname]}
        raise AuthoringError(
            f"a {type(obj).__qualname__} of the test cannot be handed to the student's code in the kernel: "
            "only data and the kernel's own objects cross. Build it in the kernel with checks.in_kernel(...) "
            "(a class or function of a provided cell), or pass data.")

    # -- decoding what comes back

    def decode(self, data: object, sent: list[torch.Tensor] | None = None,
               outputs: list[tuple[int, torch.Tensor]] | None = None, fresh: bool = False) -> object:
        link = self

        def tensor(value: torch.Tensor, payload: dict) -> object:
            position = payload.get("arg")
            if sent is not None and isinstance(position, int) and 0 <= position < len(sent):
                own, number = sent[position], payload.get("id")   # the student returned its argument itself:
                if isinstance(number, int) and not fresh and not own.requires_grad and link._live(number) is None:
                    link._track(number, own)   # the test's own tensor, so that what the kernel does to it later reaches it
                return own
            if payload.get("plain") is False:
                cls = str(payload.get("cls", ""))
                value = torch.nn.Parameter(value, requires_grad=value.requires_grad) \
                    if cls == "torch.nn.parameter.Parameter" else foreign(value, cls)
            grad = payload.get("grad")
            if isinstance(grad, dict):
                decoded = wire.Decoder(link._decode_reference, None, MAX_REPLY)(grad)
                if isinstance(decoded, torch.Tensor) and decoded.shape == value.shape and decoded.dtype == value.dtype:
                    value.grad = decoded.detach()
            number = payload.get("id")
            if isinstance(number, int) and not fresh:
                known = link._live(number)
                # The same number is the same kernel tensor, whose dtype, device or shape a conversion in the
                # kernel may have changed since (module.double()): the copy follows it (`_write`) and stays the one.
                if known is not None and "bw" not in payload and type(known) is type(value):
                    _write(known, value)
                    value = known
                else:
                    link._track(number, value)
            if outputs is not None and isinstance(payload.get("bw"), int):
                value.requires_grad_(False)   # its gradient comes from the kernel (Link._bridge)
                outputs.append((payload["bw"], value))
            return value

        self.internal += 1
        try:
            return wire.Decoder(self._decode_reference, tensor, MAX_REPLY)(data)
        finally:
            self.internal -= 1

    def _decode_reference(self, payload: dict) -> object:
        number = payload.get("id")
        if not isinstance(number, int):
            raise wire.WireError("a reference without a number")
        known = self.remotes.get(number)
        if known is not None:
            return known
        mro = payload.get("mro") if isinstance(payload.get("mro"), list) else []
        kernel_class = payload.get("class") if isinstance(payload.get("class"), list) else None
        remote = Remote(self, number, mro, bool(payload.get("callable")), kernel_class)
        self.remotes[number] = remote
        weakref.finalize(remote, self.released.append, number)
        return remote

    def _track(self, number: int, tensor: torch.Tensor) -> None:
        try:
            tensor._course_kernel = number
        except (AttributeError, RuntimeError):
            return
        self.tensors[number] = weakref.ref(tensor)
        weakref.finalize(tensor, self._forget, number)

    def _forget(self, number: int) -> None:
        if self.tensors.get(number) is not None and self.tensors[number]() is None:
            del self.tensors[number]
            self.released.append(number)

    def _live(self, number: int) -> torch.Tensor | None:
        ref = self.tensors.get(number)
        return ref() if ref is not None else None

    def _updates(self, updates: object) -> None:
        if not isinstance(updates, list):
            return
        self.internal += 1
        try:
            for update in updates:
                if not isinstance(update, dict):
                    continue
                known = self._live(update.get("id")) if isinstance(update.get("id"), int) else None
                if known is None:
                    continue
                value = self.decode(update.get("value"), fresh=True)
                if isinstance(value, torch.Tensor):
                    _write(known, value)
                    if value.grad is not None and value.grad.shape == known.shape:
                        known.grad = value.grad
                    elif value.grad is None and known.is_leaf:
                        known.grad = None
        finally:
            self.internal -= 1

    def local_class(self, mro: list) -> type | None:
        """The class here that the kernel's class hierarchy `mro` stands for: a provided class of the
        notebook (defined here from its locked cells), else Python's or torch's own."""
        for entry in mro:
            if not (isinstance(entry, list) and len(entry) == 2):
                continue
            module, qualname = str(entry[0]), str(entry[1])
            if module == "__main__":
                found = self.namespace.get(qualname)
                if isinstance(found, type) and found.__module__ == "__main__":
                    return found
                continue
            found = trusted_class(module, qualname)
            if found is not None and found is not object:
                return found
        return None

    # -- in-place changes of the kernel's tensors, made there

    @contextlib.contextmanager
    def forwarding(self) -> Iterator[None]:
        with _InPlace(self):
            yield


def _write(target: torch.Tensor, value: torch.Tensor) -> None:
    """Make `target` hold `value` (a change the kernel made), as an in-place change would."""
    with torch.no_grad():
        if target.shape == value.shape and target.dtype == value.dtype and target.device == value.device:
            target.copy_(value.detach())
        else:
            target.data = value.detach()


def _flat(value: object) -> list:
    if isinstance(value, (list, tuple)):
        return [item for v in value for item in _flat(v)]
    if isinstance(value, dict):
        return [item for v in value.values() for item in _flat(v)]
    return [value]


class _Backward(torch.autograd.Function):
    """A kernel call as one node of the grader's autograd graph: its backward is the kernel's."""

    @staticmethod
    def forward(ctx, link, call, outputs, anchor, *inputs):  # noqa: ANN001, ANN205 (torch's protocol)
        ctx.link, ctx.call, ctx.inputs = link, call, len(inputs)
        return tuple(outputs)   # the decoded tensors themselves, which the test already holds

    @staticmethod
    def backward(ctx, *grads):  # noqa: ANN001, ANN205
        found = ctx.link.backward(ctx.call, grads, ctx.inputs)
        return (None, None, None, None, *found)


class _InPlace(TorchFunctionMode):
    def __init__(self, link: Link) -> None:
        super().__init__()
        self.link = link

    def __torch_function__(self, func, types, args=(), kwargs=None):  # noqa: ANN001, ANN204 (torch's protocol)
        kwargs = kwargs or {}
        target = args[0] if args else None
        name = getattr(func, "__name__", "")
        if not self.link.internal and isinstance(target, torch.Tensor) \
                and getattr(target, "_course_kernel", None) is not None \
                and self.link._live(target._course_kernel) is target and (
                    name in INPLACE_DUNDERS or (name.endswith("_") and not name.startswith("_"))):
            if getattr(torch.Tensor, name, None) is not func and name not in INPLACE_DUNDERS:
                raise AuthoringError(f"{name} changes a copy of a kernel tensor: change it with the tensor's own "
                                     "methods (copy_, fill_, ...) or the module's (load_state_dict)")
            self.link.inplace(target, name, args[1:], kwargs)
            return target
        return func(*args, **kwargs)
