"""The verdict engine's two halves wired to each other in one process: what a test cell sees of the kernel.

The grader's `Link` talks to the kernel's `probe` server through a loopback that serialises every
request and reply to JSON as the real channel does (the real channel is the kernel's stdin, proven
end to end by the grading tests). The student's "cells" are compiled under IPython's cell file
names, so that the kernel traces their lines as it would in a notebook.
"""
import json
import linecache

import pytest
import torch

from course_utils.grader.judge.verdicts.link import AuthoringError, Link
from course_utils.grader.judge.verdicts.remote import Remote, RemoteError
from course_utils.notebook import checks, probe, wire

STUDENT = '''
import torch
import torch.nn as nn


def softmax(x, dim=-1):
    e = torch.exp(x - x.max(dim=dim, keepdim=True).values)
    return e / e.sum(dim=dim, keepdim=True)


def cheat(x, dim=-1):
    return torch.softmax(x, dim=dim)


def scale_in_place(x):
    x.mul_(2)
    return x


def broken(x):
    return x @ torch.ones(3, 3)


def draw(n, generator=None):
    return torch.rand(n, generator=generator)


class Layer(nn.Module):
    def __init__(self, d, p=0.0):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.drop = nn.Dropout(p)

    def forward(self, x):
        self.last = x.shape
        return self.drop(self.proj(x))


class Record:
    def __init__(self):
        self.calls = []

    def __enter__(self):
        return self.calls

    def __exit__(self, *exc):
        return False


def recorded(record, x):
    record.calls.append(x.shape[0])
    return x.sum()


class Counted(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(2, 2)
        self.reads = 0

    @property
    def seen(self):
        self.reads += 1
        return self.reads

    def swap(self):
        self.proj = nn.Linear(2, 2)


class Loud(torch.Tensor):
    reads = 0

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        Loud.reads += 1
        return super().__torch_function__(func, types, args, kwargs or {})


class Holder:
    def __init__(self):
        self.loud = torch.zeros(2).as_subclass(Loud)
        self.items = [1, 2]


class Meta(type):
    pass


class Tagged(metaclass=Meta):
    def __init__(self):
        self.tag = 1


class Shifty:
    def __init__(self):
        self.value = 0

    def __getattribute__(self, name):
        if name == "value":
            object.__setattr__(self, "value", object.__getattribute__(self, "value") + 1)
        return object.__getattribute__(self, name)
'''


class Loopback:
    """The channel, in one process: each request and reply goes through JSON, as on the wire."""

    def __init__(self, namespace):
        self.server = probe._Server(namespace, None)
        self.sizes = []

    def ask(self, request):
        text = json.dumps(request)
        self.sizes.append(len(text))
        return json.loads(json.dumps(self.server.answer(json.loads(text))))


def run_cell(source, name, namespace):
    """Run `source` as IPython runs a cell: under a cell's file name, its lines in linecache."""
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    exec(compile(source, name, "exec"), namespace)


@pytest.fixture
def kernel():
    namespace = {"__name__": "__main__"}
    run_cell(STUDENT, "<ipython-input-1-student>", namespace)
    return namespace


@pytest.fixture
def link(kernel):
    made = Link(Loopback(kernel), {"__name__": "__main__"})
    checks._remote = made
    yield made
    checks._remote = None


def fetch(link, *names):
    found = link.lookup(list(names))
    return [found[n] for n in names]


def test_a_call_returns_data_and_the_kernel_objects_stay_there(link):
    softmax, Layer = fetch(link, "softmax", "Layer")
    assert isinstance(softmax, Remote) and isinstance(Layer, Remote)
    x = torch.randn(3, 5)
    out = softmax(x, dim=-1)
    assert type(out) is torch.Tensor and torch.allclose(out, torch.softmax(x, -1))
    layer = Layer(4)
    assert isinstance(layer, Remote) and isinstance(layer, torch.nn.Module)
    assert isinstance(layer.proj, torch.nn.Linear) and not isinstance(layer.proj, torch.nn.Conv1d)
    assert layer.eval() is layer   # the kernel's own object comes back as the same stand-in
    assert isinstance(layer, Layer) and not isinstance(torch.zeros(1), Layer)


def test_a_plain_attribute_is_asked_once_until_the_next_request_of_another_kind(link):
    """Reading `m.proj.weight` runs none of the student's code: read again before anything else is asked,
    it comes from the grader's copy, as the same object (as `m.proj.weight is m.proj.weight` in one process)."""
    Counted, = fetch(link, "Counted")
    m = Counted()
    asked = len(link.channel.sizes)
    first = m.proj.weight
    assert m.proj is m.proj and m.proj.weight is first
    assert len(link.channel.sizes) == asked + 2, "m.proj, then its weight: once each"
    m.swap()   # a call: it may rebind anything, and does
    assert not torch.equal(m.proj.weight, first)


def test_an_attribute_whose_reading_runs_the_students_code_is_asked_every_time(link):
    Counted, Shifty = fetch(link, "Counted", "Shifty")
    m, s = Counted(), Shifty()
    assert [m.seen, m.seen, m.reads] == [1, 2, 2]    # a property
    assert [s.value, s.value] == [1, 2]              # the class's own __getattribute__
    m.proj
    asked = len(link.channel.sizes)
    m.seen
    m.proj
    assert len(link.channel.sizes) == asked + 2, "after a property ran, nothing read before it is trusted"


def test_an_attribute_whose_sending_may_run_the_students_code_is_asked_every_time(link):
    """A tensor subclass runs its __torch_function__ as it is sent; a list is a copy its owner may change."""
    Holder, Tagged = fetch(link, "Holder", "Tagged")
    h, t = Holder(), Tagged()
    asked = len(link.channel.sizes)
    h.loud, h.loud, h.items, h.items
    t.tag, t.tag   # a metaclass of the student's may answer for its class's attributes
    assert len(link.channel.sizes) == asked + 6


def test_many_calls_of_a_function_on_data_are_one_request(link, monkeypatch):
    """checks.each: the loop's results, in one round trip; its first exception stops it, as the loop would."""
    softmax, broken = fetch(link, "softmax", "broken")
    xs = [torch.randn(2, 3) for _ in range(5)]
    asked = len(link.channel.sizes)
    out = checks.each(softmax, [(x,) for x in xs])
    assert len(link.channel.sizes) == asked + 1
    assert all(torch.allclose(o, torch.softmax(x, -1)) for o, x in zip(out, xs))
    with pytest.raises(RuntimeError):
        checks.each(broken, [(torch.ones(2, 3),), (torch.ones(2, 2),)])
    # Only a complete answer counts: a kernel whose helper answers for fewer calls fails the test.
    def short(function, calls):
        return [function(*calls[0])]
    short.__module__, short.__qualname__ = checks.__name__, "_each"   # what the kernel finds by that name
    monkeypatch.setattr(checks, "_each", short)
    with pytest.raises(AssertionError, match="did not give 5 results"):
        checks.each(softmax, [(x,) for x in xs])


def test_gradients_cross_both_ways(link):
    softmax, Layer = fetch(link, "softmax", "Layer")
    x = torch.randn(2, 4, dtype=torch.float64, requires_grad=True)
    upstream = torch.randn(2, 4, dtype=torch.float64)
    (softmax(x, dim=1) * upstream).sum().backward()
    ref = x.detach().clone().requires_grad_(True)
    (torch.softmax(ref, dim=1) * upstream).sum().backward()
    assert torch.allclose(x.grad, ref.grad)
    layer = Layer(4)
    y = torch.randn(3, 4)
    layer(y).sum().backward()   # no input of the grader's needs a gradient: the module's still get theirs
    assert torch.allclose(layer.proj.bias.grad, torch.full((4,), 3.0))
    layer.zero_grad()
    assert layer.proj.bias.grad is None or float(layer.proj.bias.grad.abs().sum()) == 0.0


def test_in_place_changes_cross_both_ways(link):
    scale_in_place, Layer = fetch(link, "scale_in_place", "Layer")
    x = torch.ones(3)
    scale_in_place(x)
    assert x.tolist() == [2.0, 2.0, 2.0]   # the student changed its argument: so does the test's tensor
    layer = Layer(2)
    with link.forwarding(), torch.no_grad():
        for p in layer.parameters():
            p.copy_(torch.full(p.shape, 0.5))
    assert layer(torch.ones(1, 2)).tolist() == [[1.5, 1.5]]   # the kernel's weights were set


def test_the_rng_state_and_generators_travel_with_each_call(link):
    Layer, draw = fetch(link, "Layer", "draw")
    layer = Layer(8, p=0.5).train()
    torch.manual_seed(0)
    first = layer(torch.ones(4, 8))
    torch.manual_seed(0)
    assert torch.equal(layer(torch.ones(4, 8)), first)
    mine = torch.Generator().manual_seed(3)
    drawn = draw(4, generator=mine)
    expected = torch.Generator().manual_seed(3)
    assert torch.equal(drawn, torch.rand(4, generator=expected))
    assert torch.equal(mine.get_state(), expected.get_state())   # advanced as the kernel advanced it


def test_the_students_exception_comes_back_as_pythons_own_with_the_line(link):
    broken, softmax = fetch(link, "broken", "softmax")
    with pytest.raises(RuntimeError) as raised:
        broken(torch.ones(2, 2))
    assert isinstance(raised.value, RemoteError)
    assert "in broken, line" in raised.value.student_line and "x @ torch.ones(3, 3)" in raised.value.student_line
    with pytest.raises(AssertionError, match=r"raised RuntimeError: .* \(in broken, line \d+ of its cell"):
        checks.call("broken(x)", broken, torch.ones(2, 2))


def test_forbidden_shortcuts_are_found_by_what_they_are(link):
    cheat, softmax = fetch(link, "cheat", "softmax")
    with pytest.raises(AssertionError, match="build softmax yourself"), \
            checks.forbidden("softmax", message="build softmax yourself"):
        checks.call("cheat(x)", cheat, torch.randn(3))
    with checks.forbidden("softmax", message="build softmax yourself"):
        softmax(torch.randn(3))


def test_a_record_given_by_with_stays_in_the_kernel_and_is_read_anew(link):
    Record, recorded = fetch(link, "Record", "recorded")
    keeper = Record()
    with keeper as calls:
        recorded(keeper, torch.ones(5, 2))
        recorded(keeper, torch.ones(3, 2))
        assert list(calls) == [5, 3]


def test_nothing_of_the_tests_crosses_but_data_and_the_kernels_objects(link):
    softmax, = fetch(link, "softmax")
    with pytest.raises(AuthoringError):
        softmax(lambda t: t)
    with pytest.raises(AuthoringError):
        softmax(torch.nn.Linear(2, 2))


def test_a_students_tensor_subclass_is_no_plain_tensor_here(kernel, link):
    run_cell("class Liar(torch.Tensor):\n    pass\n\ndef lie(x):\n    return x.as_subclass(Liar)\n",
             "<ipython-input-2-student>", kernel)
    lie, = fetch(link, "lie")
    out = lie(torch.ones(2))
    assert type(out) is not torch.Tensor and type(out).__name__ == "Liar"
    with pytest.raises(AssertionError, match="must be a torch.Tensor"):
        checks.expect_tensor(out, "lie(x)")


def test_malformed_data_is_refused_before_anything_is_made():
    decode = wire.Decoder(lambda payload: pytest.fail("no reference here"), None, limit=1000)
    for bad in ({"t": "tensor", "dtype": "float32", "shape": [10_000], "data": ""},      # over the limit
                {"t": "tensor", "dtype": "object", "shape": [1], "data": ""},           # not a dtype
                {"t": "tensor", "dtype": "float32", "shape": [2], "data": "AAAA"},      # bytes do not match
                {"t": "pickle", "v": "gASV"}, [1, 2], {"t": "dict", "v": [[{"t": "list", "v": []}, 1]]}):
        with pytest.raises(wire.WireError):
            decode(bad)


def test_values_round_trip(link):
    values = [None, True, 3, -2.5, float("inf"), "x", (1, [2, {"a": 3}]), {1, 2}, torch.float16,
              torch.device("cpu"), slice(1, None, 2), Ellipsis, range(3), torch.Size([2, 3]), 2 ** 70,
              torch.arange(6).reshape(2, 3), torch.tensor([True, False]), torch.zeros(2, dtype=torch.bfloat16)]
    encoded = json.loads(json.dumps(wire.Encoder(lambda v: pytest.fail("no reference"))(values)))
    decoded = wire.Decoder(lambda p: pytest.fail("no reference"))(encoded)
    for before, after in zip(values, decoded):
        if isinstance(before, torch.Tensor):
            assert before.dtype == after.dtype and torch.equal(before, after)
        else:
            assert before == after, (before, after)
