"""The graded kernel's side of a test: it makes the calls the grader asks for and returns data.

When a notebook is graded, its test cells do not run in the kernel that ran the student's code:
they run in the grader's own process (`course_utils.grader.judge.verdicts`), which decides every
verdict there, against references it computes itself. Whenever a test reaches one of the student's
objects (calls `softmax(x)`, builds `MultiHeadAttention(12, 3)`, reads `mha.attention_weights`,
steps backward through it), the grader sends a request here and this module answers with data
(`wire`): tensors, numbers, exceptions, and references to the objects that stay in the kernel.
No test code and no reference value ever enters the kernel.

The grader runs one cell, `serve(token)`, at each test cell's place in the notebook, so the
student's objects are exactly those the notebook has at that point. Requests and replies travel
on the kernel's own stdin channel (the kernel's `raw_input`: each reply is the prompt of the next
input request, each request the answer to it), which only the grader's client holds.

Each call runs as the test asked: grad mode, the global RNG's state (sent both ways, so dropout
and sampling draw what they would in one process), quiet stderr, and any forbidden functions
(`shortcuts`) watched. In-place changes of the arguments, tensors the grader holds copies of, the
gradients a backward pass leaves, and torch generators' states come back with every reply.

What this module uses of torch and the standard library is captured when it is imported, in the
notebook's locked setup cell, before any answer runs (as `trusted` does for the tests).
"""
from __future__ import annotations

import builtins
import contextlib
import inspect
import io
import itertools
import json
import sys
import warnings
from collections.abc import Callable

import torch

from course_utils.notebook import shortcuts, tracing, wire

PREFIX = "\x1ecourse-probe:"
VERSION = 2
MAX_REPLY = 256 << 20      # bytes of tensors in one reply

_dumps, _loads = json.dumps, json.loads
_get_rng_state, _set_rng_state = torch.get_rng_state, torch.set_rng_state
_set_grad_enabled = torch.set_grad_enabled
_equal = torch.equal
_tensor_backward = torch.Tensor.backward
_Tensor = torch.Tensor
_version = torch.Tensor._version.__get__
_data_ptr = torch.Tensor.data_ptr
_isinstance, _getattr, _setattr, _delattr, _len, _iter = (builtins.isinstance, builtins.getattr, builtins.setattr,
                                                          builtins.delattr, builtins.len, builtins.iter)
_type, _vars, _object_getattribute = builtins.type, builtins.vars, object.__getattribute__
_Module, _module_getattr, _Parameter, _type_type = torch.nn.Module, torch.nn.Module.__getattr__, torch.nn.Parameter, type
_redirect_stderr, _catch_warnings, _simplefilter = contextlib.redirect_stderr, warnings.catch_warnings, \
    warnings.simplefilter
# Where the grader may ask for an object by name (checks.in_kernel): the notebook's namespace, and these.
KERNEL_MODULES = ("torch", "functools", "operator", "math", "course_utils.notebook")


class _Table:
    """The kernel's objects the grader holds references to, and the tensors it holds copies of."""

    def __init__(self) -> None:
        self.objects: dict[int, object] = {}
        self.by_identity: dict[int, int] = {}
        self.next = itertools.count(1)
        self.shipped: dict[int, tuple] = {}   # number -> (tensor, *its _state when last shipped)
        self.calls: dict[int, tuple[list[torch.Tensor], list[torch.Tensor]]] = {}
        self.call_ids = itertools.count(1)

    def handle(self, obj: object) -> int:
        key = id(obj)
        if key in self.by_identity and self.objects.get(self.by_identity[key]) is obj:
            return self.by_identity[key]
        number = next(self.next)
        self.objects[number] = obj
        self.by_identity[key] = number
        return number

    def get(self, number: object) -> object:
        if not _isinstance(number, int) or number not in self.objects:
            raise LookupError(f"no object {number!r} in the kernel's table")
        return self.objects[number]

    def release(self, numbers: list) -> None:
        for number in numbers:
            obj = self.objects.pop(number, None)
            if obj is not None:
                self.by_identity.pop(id(obj), None)
            self.shipped.pop(number, None)

    def remember(self, number: int, tensor: torch.Tensor) -> None:
        self.shipped[number] = (tensor, *_state(tensor))


def _leaf_grad(tensor: torch.Tensor) -> torch.Tensor | None:
    return tensor.grad if tensor.is_leaf else None   # (a non-leaf's .grad is always None, and warns)


def _state(tensor: torch.Tensor) -> tuple:
    """What the grader's copy of `tensor` must follow. A module's .double() or .to(device) gives its parameters
    new data without an in-place change (their version stays), hence the dtype, device and shape too."""
    grad = _leaf_grad(tensor)
    return (_version(tensor), id(grad), _version(grad) if grad is not None else -1, bool(tensor.requires_grad),
            tensor.dtype, tensor.device, tuple(tensor.shape), _data_ptr(tensor))   # `x.data = y`: a new storage


def _mro(cls: type) -> list[list[str]]:
    return [[c.__module__, c.__qualname__] for c in cls.__mro__]


class _Server:
    def __init__(self, namespace: dict, ask: Callable[[str], str]) -> None:
        self.namespace, self.ask, self.table = namespace, ask, _Table()
        self.arguments: dict[int, int] = {}      # id(kernel copy of an argument) -> its position, during a call
        self._encoder = wire.Encoder(self.reference, self.ship, MAX_REPLY)   # the one writing the reply under way

    # -- the loop

    def run(self, token: str) -> None:
        reply: dict = {"hello": token, "version": VERSION}
        while True:
            request = _loads(self.ask(PREFIX + _dumps(reply)))
            if not _isinstance(request, dict):
                raise ValueError("a request that is not an object")
            if request.get("op") == "done":
                return
            reply = self.answer(request)

    def answer(self, request: dict) -> dict:
        self.table.release(request.get("release") or [])
        used: list[str] = []
        try:
            op = request.get("op")
            handler = _getattr(self, f"op_{op}", None) if _isinstance(op, str) else None
            if handler is None:
                raise ValueError(f"unknown request {op!r}")
            reply = {"value": handler(request, used)}
        except (Exception, SystemExit) as error:  # noqa: BLE001  (the student's error is the test's data)
            reply = {"error": self.error(error)}
        if used:
            reply["forbidden"] = used
        reply["updates"] = self.updates()
        return reply

    def error(self, error: BaseException) -> dict:
        frame = tracing.student_frame(error.__traceback__)
        student = None
        if frame is not None:
            student = {"line": tracing.student_line(frame),
                       "owner": getattr(frame.tb_frame.f_code, "co_qualname", frame.tb_frame.f_code.co_name)}
        return {"type": type(error).__name__, "mro": _mro(type(error)), "message": str(error)[:4000],
                "student": student}

    # -- encoding


    def reference(self, obj: object) -> dict:
        if inspect.isgenerator(obj) or _isinstance(obj, (type({}.keys()), type({}.values()), type({}.items()),
                                                           map, filter, zip, enumerate, reversed)):
            items = list(itertools.islice(obj, wire.MAX_ITEMS + 1))
            return {"t": "iter", "v": [self._encoder(v) for v in items]}
        info = {"t": "ref", "id": self.table.handle(obj), "mro": _mro(type(obj)), "callable": callable(obj)}
        if _isinstance(obj, type):
            info["class"] = [obj.__module__, obj.__qualname__]
        return info

    def ship(self, tensor: torch.Tensor) -> dict:
        extra: dict = {"plain": type(tensor) is _Tensor}
        position = self.arguments.get(id(tensor))
        if position is not None:
            extra["arg"] = position
        number = self.table.handle(tensor)
        self.table.remember(number, tensor)
        extra["id"] = number
        grad = _leaf_grad(tensor)
        if grad is not None and _isinstance(grad, _Tensor):
            extra["grad"] = wire.Encoder(self.reference, None, MAX_REPLY).tensor(grad)
        return extra

    def updates(self) -> list:
        changed = []
        for number, (tensor, *before) in list(self.table.shipped.items()):
            now = _state(tensor)
            if list(now) != before:
                self.table.remember(number, tensor)
                changed.append({"id": number, "value": self.encode(tensor)})
        return changed

    def encode(self, value: object) -> object:
        self._encoder = wire.Encoder(self.reference, self.ship, MAX_REPLY)
        return self._encoder(value)

    # -- decoding what the grader sends

    def decode(self, data: object, copies: list | None = None) -> object:
        def tensor(value: torch.Tensor, payload: dict) -> torch.Tensor:
            if copies is not None:
                copies.append(value)
            return value
        return wire.Decoder(self.resolve, tensor, MAX_REPLY)(data)

    def resolve(self, payload: dict) -> object:
        if "id" in payload:
            return self.table.get(payload["id"])
        if "name" in payload:   # checks.in_kernel: a provided or imported object, found by its name here
            module, qualname = payload["name"]
            return _named(self.namespace, str(module), str(qualname))
        raise ValueError("a reference without an id or a name")

    # -- running what the student wrote, as the test asked

    @contextlib.contextmanager
    def context(self, ctx: dict, used: list[str]):
        rng = ctx.get("rng")
        if rng is not None:
            _set_rng_state(wire.state_tensor(rng))
        forbid = tuple(str(p) for p in ctx.get("forbid") or ())
        with _set_grad_enabled(bool(ctx.get("grad", True))), _redirect_stderr(io.StringIO()), _catch_warnings():
            _simplefilter("ignore")
            with shortcuts.watching(forbid, used) if forbid else contextlib.nullcontext():
                yield
        sys.stderr.flush()

    def run_call(self, request: dict, used: list[str], call: Callable[[list], object]) -> dict:
        copies: list[torch.Tensor] = []
        args = self.decode(request.get("args", {"t": "list", "v": []}), copies)
        generators = [g for g in _flat(args) if _isinstance(g, torch.Generator)]
        before = [_version(t) for t in copies]
        self.arguments = {id(t): i for i, t in enumerate(copies)}
        ctx = request.get("ctx") or {}
        try:
            with self.context(ctx, used):
                rng = _get_rng_state()
                result = call(args)
                drawn = not _equal(rng, _get_rng_state())
            outputs = []
            encoded = self.encode_outputs(result, outputs)
        finally:
            self.arguments = {}
        reply: dict = {"result": encoded}
        changed = [{"index": i, "value": self.encode(t)} for i, (t, v) in enumerate(zip(copies, before))
                   if _version(t) != v]
        if changed:
            reply["arguments"] = changed
        if generators:
            reply["generators"] = [wire.generator_state(g) for g in generators]
        if drawn:   # the call drew from the global RNG: the grader's continues from here
            reply["rng"] = wire.b64(wire.tensor_bytes(_get_rng_state()))
        inputs = [t for t in copies if t.requires_grad]
        if outputs:
            number = next(self.table.call_ids)
            self.table.calls[number] = (outputs, inputs)
            reply["call"] = number
        return reply

    def encode_outputs(self, result: object, outputs: list) -> object:
        """`result` as data; each tensor in it that carries a gradient is numbered ("bw") for backward."""
        if type(result) is _Kept:
            value = result.value
            return self.reference(value) if _isinstance(value, (list, dict, set)) else self.encode_outputs(value, outputs)
        def ship(tensor: torch.Tensor) -> dict:
            extra = self.ship(tensor)
            if tensor.requires_grad and tensor.grad_fn is not None or tensor.requires_grad and self.is_argument(tensor):
                extra["bw"] = len(outputs)
                outputs.append(tensor)
            return extra
        self._encoder = wire.Encoder(self.reference, ship, MAX_REPLY)
        return self._encoder(result)

    def is_argument(self, tensor: torch.Tensor) -> bool:
        return id(tensor) in self.arguments

    # -- the requests

    def op_lookup(self, request: dict, used: list[str]) -> dict:
        found = {}
        for name in request.get("names", []):
            if _isinstance(name, str) and name in self.namespace:
                found[name] = self.encode(self.namespace[name])
        return found

    def op_call(self, request: dict, used: list[str]) -> dict:
        function = self.decode(request.get("function"))
        return self.run_call(request, used, lambda args: function(*args[0], **args[1]))

    def op_getattr(self, request: dict, used: list[str]) -> object:
        obj = self.table.get(request.get("object"))
        name = str(request.get("name"))
        if name == "__signature__":
            return {"value": self.encode(_signature(obj))}
        plain = _plain_attribute(obj, name)
        with self.context(request.get("ctx") or {}, used):
            found = _getattr(obj, name)
            plain = plain and _inert(found)
            value = self.encode(found)
        # The grader may read it again from its own copy until its next request of another kind.
        return {"plain": value} if plain else {"value": value}

    def op_setattr(self, request: dict, used: list[str]) -> None:
        obj = self.table.get(request.get("object"))
        value = self.decode(request.get("value"))
        with self.context(request.get("ctx") or {}, used):
            _setattr(obj, str(request.get("name")), value)

    def op_delattr(self, request: dict, used: list[str]) -> None:
        obj = self.table.get(request.get("object"))
        with self.context(request.get("ctx") or {}, used):
            _delattr(obj, str(request.get("name")))

    def op_getitem(self, request: dict, used: list[str]) -> dict:
        obj = self.table.get(request.get("object"))
        return self.run_call(request, used, lambda args: obj[args[0]])

    def op_setitem(self, request: dict, used: list[str]) -> dict:
        obj = self.table.get(request.get("object"))

        def store(args: list) -> None:
            obj[args[0]] = args[1]
        return self.run_call(request, used, store)

    def op_delitem(self, request: dict, used: list[str]) -> dict:
        obj = self.table.get(request.get("object"))

        def remove(args: list) -> None:
            del obj[args[0]]
        return self.run_call(request, used, remove)

    def op_len(self, request: dict, used: list[str]) -> int:
        with self.context({}, used):
            return _len(self.table.get(request.get("object")))

    def op_iter(self, request: dict, used: list[str]) -> object:
        obj = self.table.get(request.get("object"))
        with self.context(request.get("ctx") or {}, used):
            items = list(itertools.islice(_iter(obj), wire.MAX_ITEMS + 1))
        if _len(items) > wire.MAX_ITEMS:
            raise ValueError(f"more than {wire.MAX_ITEMS} items")
        return self.encode(items)

    def op_contains(self, request: dict, used: list[str]) -> bool:
        obj = self.table.get(request.get("object"))
        item = self.decode(request.get("item"))
        with self.context({}, used):
            return bool(item in obj)

    def op_bool(self, request: dict, used: list[str]) -> bool:
        with self.context({}, used):
            return bool(self.table.get(request.get("object")))

    def op_isinstance(self, request: dict, used: list[str]) -> bool:
        obj = self.decode(request.get("value"))
        cls = self.table.get(request.get("class"))
        return bool(_isinstance(obj, cls)) if _isinstance(cls, type) else False

    def op_enter(self, request: dict, used: list[str]) -> dict:
        """`with obj as found:` -- a container `found` stays here (a record the block fills in as it runs)."""
        obj = self.table.get(request.get("object"))
        return self.run_call(request, used, lambda args: _Kept(obj.__enter__()))

    def op_exit(self, request: dict, used: list[str]) -> dict:
        obj = self.table.get(request.get("object"))
        failed = bool(request.get("failed"))
        error = AssertionError("the test failed inside this block") if failed else None

        def leave(args: list) -> object:
            return obj.__exit__(type(error) if error else None, error, None)
        return self.run_call(request, used, leave)

    def op_inplace(self, request: dict, used: list[str]) -> dict:
        tensor = self.table.get(request.get("object"))
        if not _isinstance(tensor, _Tensor):
            raise TypeError("an in-place change of something that is not a tensor")
        method = _getattr(_Tensor, str(request.get("method")))
        return self.run_call(request, used, lambda args: method(tensor, *args[0], **args[1]))

    def op_backward(self, request: dict, used: list[str]) -> dict:
        outputs, inputs = self.table.calls.get(request.get("call"), (None, None))
        if outputs is None:
            raise LookupError("no such call to step backward through")
        grads = self.decode(request.get("grads"))
        pairs = [(o, g) for o, g in zip(outputs, grads) if g is not None]
        for tensor in inputs:
            tensor.grad = None
        if pairs:
            with self.context({**(request.get("ctx") or {}), "grad": True}, used):
                # sum(output * its gradient) has exactly the gradients torch.autograd.backward(outputs, grads)
                # gives (real tensors), without the seconds that call spends importing torch.fx the first
                # time it is given gradients.
                total = _sum_of([(o * g.to(o.dtype)).sum() for o, g in pairs])
                _tensor_backward(total, retain_graph=True)
        found = [t.grad for t in inputs]
        for tensor in inputs:
            tensor.grad = None
        return self.encode(found)

    def op_uses(self, request: dict, used: list[str]) -> list:
        """Which of the tested exercises `exercise`'s code refers to (tracing: "fix X first")."""
        exercise, tested = str(request.get("exercise")), [str(n) for n in request.get("tested", [])]
        return tracing.refers_to(exercise, self.namespace, tested)


class _Kept:
    """A value to be sent as a reference if it is a container (see op_enter)."""

    def __init__(self, value: object) -> None:
        self.value = value


def _sum_of(terms: list[torch.Tensor]) -> torch.Tensor:
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total


def _flat(value: object) -> list:
    if _isinstance(value, (list, tuple)):
        return [item for v in value for item in _flat(v)]
    if _isinstance(value, dict):
        return [item for v in value.values() for item in _flat(v)]
    return [value]


def _named(namespace: dict, module: str, qualname: str) -> object:
    """The object `checks.in_kernel` asked for: a name of the notebook's, or of a kernel module."""
    parts = qualname.split(".")
    if module == "__main__":
        if parts[0] not in namespace:
            raise NameError(f"{parts[0]} is not defined in the notebook")
        obj = namespace[parts[0]]
    elif any(module == m or module.startswith(m + ".") for m in KERNEL_MODULES):
        import importlib

        obj = importlib.import_module(module)
        obj = _getattr(obj, parts[0])
    else:
        raise PermissionError(f"the grader may not reach {module} in the kernel")
    for part in parts[1:]:
        obj = _getattr(obj, part)
    return obj


def _plain_attribute(obj: object, name: str) -> bool:
    """Whether reading `obj.name` runs none of the student's code: Python's or torch's own attribute
    machinery, no class attribute of that name (a property, a descriptor), and the value in the
    instance's own dict or an nn.Module's parameters, buffers or submodules."""
    cls = _type(obj)
    if not _plain_class(cls) or cls.__getattribute__ is not _object_getattribute:
        return False
    try:
        if any(name in _vars(c) for c in cls.__mro__):
            return False
        own = _object_getattribute(obj, "__dict__")
    except (AttributeError, TypeError):   # no __dict__ (slots, builtins): not worth following
        return False
    if not _isinstance(own, dict):
        return False
    if name in own:
        return True
    if not _isinstance(obj, _Module) or _getattr(cls, "__getattr__", None) is not _module_getattr:
        return False
    return any(_isinstance(own.get(part), dict) and name in own[part] for part in ("_parameters", "_buffers", "_modules"))


def _inert(value: object) -> bool:
    """Whether sending `value` runs none of the student's code either: a plain tensor, a number or a string,
    or an object sent by reference whose classes leave `__class__` to Python. Not a container, nor a tensor
    subclass (its __torch_function__ runs as its dtype and shape are read)."""
    cls = _type(value)
    if value is None or cls in (_Tensor, _Parameter, bool, int, float, str):
        return True
    if not _plain_class(cls) or issubclass(cls, (_Tensor, list, tuple, dict, set, frozenset)):
        return False
    return all("__class__" not in _vars(c) for c in cls.__mro__[:-1])


def _plain_class(cls: type) -> bool:
    """Whether `cls` is made by `type` itself, so that reading its attributes (and, as every base's
    metaclass is then `type` too, its bases') runs no metaclass of the student's."""
    return _type(cls) is _type_type


def _signature(obj: object) -> list:
    """A callable's parameters as data: [name, kind, has a default, the default (plain values only)]."""
    return [[p.name, int(p.kind), p.default is not inspect.Parameter.empty,
             None if p.default is inspect.Parameter.empty else _plain(p.default)]
            for p in inspect.signature(obj).parameters.values()]


def _plain(value: object) -> object:
    return value if value is None or _isinstance(value, (bool, int, float, str)) else repr(value)[:200]


class _Discard(io.TextIOBase):
    """Where the student's code prints while the grader judges a test: nowhere (the grader writes the
    test cell's output itself), and without ipykernel's flush to the frontend at every request."""

    def write(self, text: str) -> int:
        return len(text)

    def writable(self) -> bool:
        return True


def serve(token: str) -> None:
    """Answer the grader's requests until it is done (the one cell the grader runs per test cell)."""
    from IPython import get_ipython

    shell = get_ipython()
    server = _Server(shell.user_ns, shell.kernel.raw_input)
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = _Discard()
    try:
        server.run(token)
    finally:
        sys.stdout, sys.stderr = saved
