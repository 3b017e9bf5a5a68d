"""Honest code written in unusual ways raises no finding: the screen holds no honest student.

Each program is what a student might well write: a cell added to a notebook with right answers
(or an answer written another way). None of them may be found, or an honest student's grade would
wait for a person for nothing. They cover what the allowlist must allow: helper classes and
functions of every shape, threads, torch.compile, plots, printing, warnings, timing magics, data
classes, comprehensions, lambdas, in-place work on the student's own tensors and modules.
"""
import pytest

from screening import SOFTMAX, findings

A01, A03, A07 = "01_queries_keys_values", "03_multi_head_attention", "07_encoder_decoder"

# (what, assignment, the answer it replaces (None: a cell added), the code)
HONEST = [
    ("a helper module class", A01, None,
     "class Helper(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
     "        self.lin = nn.Linear(d, d)\n\n    def forward(self, x):\n        return self.lin(x)\n\n"
     "    def __repr__(self):\n        return f'{type(self).__name__}({self.lin.in_features})'\n"
     "print(Helper(3)(torch.randn(2, 3)).shape, Helper(2))"),
    ("einsum", A01, "dot_product_scores",
     "def dot_product_scores(query, keys):\n    return torch.einsum('...qd,...kd->...qk', query, keys)"),
    ("threads in a helper", A01, None,
     "import threading\n\nresults = {}\n\ndef helper(n):\n    results[n] = softmax(torch.randn(n)).sum().item()\n\n"
     "threads = [threading.Thread(target=helper, args=(n,), daemon=True) for n in (3, 4)]\n"
     "for t in threads:\n    t.start()\nfor t in threads:\n    t.join()\nprint(results)"),
    ("a thread pool", A01, None,
     "from concurrent.futures import ThreadPoolExecutor\n\nwith ThreadPoolExecutor(max_workers=2) as pool:\n"
     "    sums = list(pool.map(lambda n: softmax(torch.randn(n)).sum().item(), [3, 5]))\nprint(sums)"),
    ("torch.compile", A01, None,
     "model = nn.Sequential(nn.Linear(4, 4), nn.ReLU())\ncompiled = torch.compile(model)\n"
     "fast = torch.compile(model, mode='reduce-overhead', fullgraph=False)\nmodel.compile()\n"
     "print(compiled(torch.randn(2, 4)).shape)"),
    ("plots", A01, None,
     "%matplotlib inline\nimport matplotlib.pyplot as plt\nfig, axes = plt.subplots(1, 2, figsize=(8, 3))\n"
     "axes[0].plot([1, 2, 3], label='a')\naxes[0].legend()\naxes[1].imshow(torch.rand(4, 4).numpy(), cmap='viridis')\n"
     "fig.colorbar(axes[1].images[0], ax=axes[1])\nfig.suptitle('weights')\nfig.tight_layout()\n"
     "plt.rcParams['figure.figsize'] = (8, 4)\nplt.show()"),
    ("the notebook's own plots", A01, None,
     "w = softmax(torch.randn(3, 4))\nattention_heatmap(w, query_labels=['a', 'b', 'c'], key_labels=list('wxyz'))\n"
     "line_plot([1, 2, 3], {'loss': [3.0, 2.0, 1.5]}, title='t', xlabel='x', ylabel='y')\nplt.show()"),
    ("much printing", A01, None,
     "for i in range(1000):\n    print(i, softmax(torch.randn(3)).sum().item(), sep=', ', end='\\n', flush=True)\n"
     "print(*[f'{v:.3f}' for v in torch.rand(3).tolist()])"),
    ("printing to stderr", A01, None,
     "import sys\nprint('shapes', (2, 3), file=sys.stderr)\nsys.stderr.write('done\\n')\nsys.stderr.flush()\n"
     "sys.stdout.flush()"),
    ("warnings", A01, "softmax",
     "import warnings\n\ndef softmax(x, dim=-1):\n    warnings.warn('softmax: a stable version', UserWarning)\n"
     "    with warnings.catch_warnings():\n        warnings.simplefilter('ignore')\n"
     "        e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n    return e / e.sum(dim=dim, keepdim=True)"),
    ("%timeit and %%time", A01, None, "%timeit -n 3 -r 1 softmax(torch.randn(3, 4))\n"
                                      "%time y = softmax(torch.randn(5))"),
    ("a timed cell", A01, None, "%%time\ny = softmax(torch.randn(3, 4))\nprint(y.sum())"),
    ("a captured cell", A01, None, "%%capture out\nprint(softmax(torch.randn(3)))"),
    ("sharper figures and help on a name", A01, None, "%config InlineBackend.figure_format = 'retina'\nsoftmax?"),
    ("torch's threads", A01, None,
     "threads = torch.get_num_threads()\ntorch.set_num_threads(1)\ntry:\n    softmax(torch.randn(4))\n"
     "finally:\n    torch.set_num_threads(threads)"),
    ("setattr on self in a loop", A01, None,
     "class P(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
     "        for name in ('a', 'b'):\n            setattr(self, name, nn.Linear(2, 2))\n"
     "        for i, n in enumerate(['c', 'd']):\n            setattr(self, f'layer_{n}', nn.Linear(2, 2))\n"
     "        for i in range(3):\n            setattr(self, f'block{i}', nn.Linear(2, 2))\n\n"
     "    def forward(self, x):\n        for i in range(3):\n            x = getattr(self, f'block{i}')(x)\n"
     "        return self.layer_c(getattr(self, 'a')(x))"),
    ("a dataclass", A01, None,
     "from dataclasses import dataclass, field\n\n@dataclass(order=True)\nclass Beam:\n    score: float\n"
     "    tokens: list = field(default_factory=list)\n\n    def extended(self, token, logp):\n"
     "        return Beam(self.score + logp, self.tokens + [token])\n\nbest = max([Beam(0.5), Beam(0.1)])\n"
     "print(best.extended(3, -0.2))"),
    ("comprehensions, lambdas and f-strings", A01, None,
     "squares = [i * i for i in range(5)]\nindex = {w: i for i, w in enumerate(['a', 'b'])}\n"
     "evens = {i for i in squares if i % 2 == 0}\ngen = (x.sum() for x in torch.randn(3, 2))\n"
     "order = sorted(index, key=lambda w: -index[w])\nprint(f'{squares!r:>20} {len(evens):03d} {order}', list(gen))"),
    ("nested functions and closures", A01, None,
     "def make_counter():\n    count = 0\n\n    def bump(step=1):\n        nonlocal count\n        count += step\n"
     "        return count\n    return bump\n\ncounter = make_counter()\nprint(counter(), counter(2))"),
    ("a module list and a buffer", A01, None,
     "class Stack(nn.Module):\n    def __init__(self, d, n):\n        super().__init__()\n"
     "        self.layers = nn.ModuleList([nn.Linear(d, d) for _ in range(n)])\n"
     "        self.register_buffer('scale', torch.tensor(d ** -0.5))\n"
     "        self.gain = nn.Parameter(torch.ones(d))\n\n    def forward(self, x):\n"
     "        for layer in self.layers:\n            x = torch.relu(layer(x)) * self.scale\n"
     "        return x * self.gain\n\n"
     "stack = Stack(4, 2)\nstack.layers[0].weight.data.fill_(0.1)\nprint(stack(torch.randn(2, 4)).shape)"),
    ("in-place work on its own tensors and modules", A01, None,
     "x = torch.zeros(3, 4)\nx.data = torch.ones(3, 4)\nx.add_(1).mul_(2)\nx[0] = 0\nx[x > 3] = -1.0\n"
     "x.requires_grad = True\nx.grad = None\nlayer = nn.Linear(4, 2)\nlayer.weight = nn.Parameter(torch.zeros(2, 4))\n"
     "layer.bias.requires_grad = False\nfor p in layer.parameters():\n    p.requires_grad = False\n"
     "next(iter(layer.parameters())).requires_grad = True\nwith torch.no_grad():\n"
     "    layer.weight.copy_(torch.ones(2, 4))\n"
     "    layer.weight.mul_(0.5)\nnn.init.zeros_(layer.bias)\nprint(x, layer)"),
    ("no_grad, inference mode and autocast", A01, None,
     "@torch.no_grad()\ndef evaluate(x):\n    return softmax(x)\n\nwith torch.inference_mode():\n"
     "    y = evaluate(torch.randn(3))\n"
     "with torch.autocast('cpu', dtype=torch.bfloat16):\n    z = torch.randn(2, 2) @ torch.randn(2, 2)\n"
     "with torch.enable_grad(), torch.set_grad_enabled(True):\n    pass"),
    ("tqdm", A01, None,
     "from tqdm.auto import tqdm, trange\nbar = tqdm(range(3), desc='steps')\nfor step in bar:\n"
     "    bar.set_postfix(loss=0.1 * step)\nfor _ in trange(2):\n    pass\nbar.close()"),
    ("a training loop", A01, None,
     "torch.manual_seed(0)\nmodel = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.1), nn.Linear(8, 3))\n"
     "opt = torch.optim.Adam(model.parameters(), lr=1e-3)\n"
     "sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: min(1.0, (step + 1) / 10))\n"
     "data = torch.utils.data.TensorDataset(torch.randn(16, 4), torch.randint(0, 3, (16,)))\n"
     "loader = torch.utils.data.DataLoader(data, batch_size=4, shuffle=True, drop_last=True)\nmodel.train()\n"
     "for xb, yb in loader:\n    opt.zero_grad()\n    loss = F.cross_entropy(model(xb), yb)\n    loss.backward()\n"
     "    nn.utils.clip_grad_norm_(model.parameters(), 1.0)\n    opt.step()\n    sched.step()\n"
     "for group in opt.param_groups:\n    group['lr'] = 1e-4\nmodel.eval()\nprint(loss.item())"),
    ("a custom autograd function", A01, None,
     "class Double(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
     "        ctx.save_for_backward(x)\n        return 2 * x\n\n    @staticmethod\n    def backward(ctx, g):\n"
     "        (x,) = ctx.saved_tensors\n        return 2 * g\n\n"
     "print(Double.apply(torch.ones(2, requires_grad=True)))"),
    ("a heap for a beam search", A01, None,
     "import heapq\nimport itertools\n\nheap, tie = [], itertools.count()\n"
     "for score, tokens in [(0.5, [1]), (0.2, [2])]:\n"
     "    heapq.heappush(heap, (-score, next(tie), tokens))\nbest = heapq.heappop(heap)[2]\n"
     "top = heapq.nsmallest(1, heap)\nprint(best, top)"),
    ("collections, math, random and statistics", A01, None,
     "import math\nimport random\nimport statistics\nfrom collections import Counter, defaultdict, namedtuple, deque\n"
     "random.seed(0)\ncounts = Counter('abracadabra').most_common(2)\ngroups = defaultdict(list)\n"
     "groups['a'].append(math.sqrt(2))\nPoint = namedtuple('Point', 'x y')\nq = deque(maxlen=2)\n"
     "q.append(Point(1, 2))\n"
     "print(counts, statistics.mean([1, 2, 3]), math.inf, -math.log(0.5), random.random(), q[0]._asdict())"),
    ("annotations and typing", A01, None,
     "from __future__ import annotations\nfrom typing import Optional, Tuple, List\n\n"
     "def split(x: torch.Tensor, mask: Optional[torch.Tensor] = None) -> Tuple[torch.Tensor, List[int]]:\n"
     "    out: torch.Tensor = x if mask is None else x.masked_fill(~mask, 0)\n    return out, list(out.shape)\n\n"
     "print(split(torch.ones(2, 2)))"),
    ("type checks", A01, None,
     "def describe(x):\n    if isinstance(x, (torch.Tensor, nn.Parameter)):\n        return 'tensor'\n"
     "    if isinstance(x, nn.Module) or issubclass(type(x), nn.Module):\n        return 'module'\n"
     "    if type(x) is torch.Tensor or x.__class__.__name__ == 'list':\n        return 'plain'\n"
     "    return type(x).__name__\n"
     "print(describe(torch.ones(1)), describe(nn.Linear(1, 1)), describe([]))"),
    ("errors raised and caught", A01, None,
     "class ShapeError(ValueError):\n    pass\n\ndef check(x):\n    if x.dim() != 2:\n"
     "        raise ShapeError(f'expected 2 dims, got {x.dim()}')\n"
     "    assert x.shape[0] > 0, 'empty'\n\ntry:\n    check(torch.ones(3))\n"
     "except (ShapeError, RuntimeError) as error:\n"
     "    print('caught', error)\nexcept torch.cuda.OutOfMemoryError:\n    raise\nfinally:\n    print('done')"),
    ("a generator, recursion, a walrus and match", A01, None,
     "def batches(xs, n):\n    for i in range(0, len(xs), n):\n        yield xs[i:i + n]\n\n"
     "def depth(tree):\n    return 1 + max((depth(t) for t in tree), default=0)\n\n"
     "if (n := len(list(batches(list(range(10)), 3)))) > 2:\n    print(n, depth([[[]], []]))\n"
     "match n:\n    case 4:\n        print('four')\n    case _:\n        print('other')"),
    ("properties, class and static methods", A01, None,
     "class Config:\n    heads = 2\n\n    def __init__(self, d):\n        self.d = d\n\n    @property\n"
     "    def d_k(self):\n        return self.d // self.heads\n\n    @classmethod\n    def small(cls):\n"
     "        return cls(8)\n\n"
     "    @staticmethod\n    def check(d):\n        return d % 2 == 0\n\ncfg = Config.small()\ncfg.d = 16\n"
     "Config.heads = 4\n"
     "print(cfg.d_k, Config.check(cfg.d))"),
    ("an enum and an abstract base", A01, None,
     "from abc import ABC, abstractmethod\nfrom enum import Enum\n\nclass Mode(Enum):\n    TRAIN = 1\n    EVAL = 2\n\n"
     "class Scorer(ABC):\n    @abstractmethod\n    def score(self, x):\n        ...\n\nclass Sum(Scorer):\n"
     "    def score(self, x):\n        return x.sum()\n\nprint(Mode.TRAIN.name, Sum().score(torch.ones(2)))"),
    ("a context manager of its own", A01, None,
     "import contextlib\nimport time\n\n@contextlib.contextmanager\ndef timer(label):\n"
     "    start = time.perf_counter()\n"
     "    yield\n    print(label, time.perf_counter() - start)\n\nclass Quiet:\n    def __enter__(self):\n"
     "        return self\n\n"
     "    def __exit__(self, *exc):\n        return False\n\nwith timer('softmax'), Quiet():\n"
     "    softmax(torch.randn(3))"),
    ("numpy next to torch", A01, None,
     "import numpy as np\nrng = np.random.default_rng(0)\na = rng.normal(size=(2, 3)).astype(np.float32)\n"
     "t = torch.from_numpy(a)\n"
     "print(np.allclose(t.numpy(), a), np.exp(a).sum(axis=-1), a.shape, np.float64(1.5).item())"),
    ("strings, json and regular expressions", A01, None,
     "import json\nimport re\nimport textwrap\ntemplate = '{:>8} | {:.3f}'\nline = template.format('loss', 0.25)\n"
     "words = re.findall(r'\\w+', 'a cat, a dog')\nprint(line, json.dumps({'words': words}), ' '.join(words).upper(),\n"
     "      textwrap.dedent('  x'), '{0.shape}'.format(torch.ones(2)), '%d items' % len(words))"),
    ("copies and factories", A07, None,
     "import copy\n\ndef clones(module, n):\n    return nn.ModuleList([copy.deepcopy(module) for _ in range(n)])\n\n"
     "def make_layer(d):\n    layer = nn.Linear(d, d)\n    nn.init.xavier_uniform_(layer.weight)\n    return layer\n\n"
     "layer = make_layer(4)\nlayer.bias.data.zero_()\nstack = clones(layer, 2)\nstack[1].weight.requires_grad_(False)\n"
     "print(len(stack), stack.state_dict().keys())"),
    ("a model's parts set by hand", A07, None,
     "class Tiny(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
     "        self.embed = nn.Embedding(10, 4)\n"
     "        self.out = nn.Linear(4, 10, bias=False)\n        self.out.weight = self.embed.weight\n"
     "        self.drop = nn.Dropout(0.1)\n\n    def forward(self, x):\n"
     "        return self.out(self.drop(self.embed(x)))\n\n"
     "tiny = Tiny()\ntiny.drop.p = 0.0\ntiny.load_state_dict(tiny.state_dict())\n"
     "print(tiny(torch.tensor([[1, 2]])).shape)"),
    ("the notebook's checks and references, to compare", A01, None,
     "x = torch.randn(3, 5)\ncheckpoint = trusted.softmax(x, dim=-1)\n"
     "checks.expect_close(softmax(x), checkpoint, 'my softmax')\n"
     "print(torch.softmax(x, -1).sum(), F.softmax(x, -1).shape, session.device, DEVICE)"),
    ("its own x and out", A01, None, "x = torch.randn(2, 3)\nout = softmax(x)\nprint(out, out.sum(-1))"),
    ("a look at the tests' last values", A01, None, "print(out.shape, x.dtype)"),
    ("a counter of its own", A01, None,
     "calls = 0\n\ndef bump():\n    global calls\n    calls += 1\n    return calls\n\nbump()"),
    ("decorators of the standard library", A01, None,
     "import functools\n\n@functools.lru_cache(maxsize=None)\ndef f(n):\n    return n * 2\n\n"
     "def logged(fn):\n    @functools.wraps(fn)\n    def wrapper(*args, **kwargs):\n"
     "        print('calling', fn.__name__)\n"
     "        return fn(*args, **kwargs)\n    return wrapper\n\n@logged\ndef g(x):\n    return x + 1\n\n"
     "add = functools.partial(g)\nprint(f(3), add(1), functools.reduce(lambda a, b: a + b, [1, 2, 3]))"),
    ("a main guard and versions", A01, None,
     "import sys\nif __name__ == '__main__':\n    print(torch.__version__, sys.version_info[:2])"),
    ("seeds, devices and cudnn settings", A01, None,
     "torch.manual_seed(0)\ngen = torch.Generator().manual_seed(1)\nx = torch.randn(2, 3, generator=gen)\n"
     "torch.backends.cudnn.deterministic = True\ntorch.backends.cudnn.benchmark = False\n"
     "device = 'cuda' if torch.cuda.is_available() else 'cpu'\nprint(x.to(device), torch.finfo(x.dtype).min,\n"
     "      x.new_zeros(2), torch.zeros(2, device=x.device, dtype=x.dtype))"),
    ("display and clearing output", A01, None,
     "from IPython.display import display, clear_output\ndisplay(softmax(torch.randn(2)))\nclear_output(wait=True)"),
    ("dir, ids and help-free introspection", A01, None,
     "layer = nn.Linear(2, 2)\nprint([n for n in dir(layer) if not n.startswith('_')][:3], id(layer) > 0,\n"
     "      hasattr(layer, 'weight'), getattr(layer, 'bias', None) is not None, callable(layer))"),
    ("a soft lookup through its own softmax", A01, "soft_lookup",
     "def soft_lookup(query, keys, values):\n    weights = softmax(dot_product_scores(query, keys), dim=-1)\n"
     "    return weights @ values"),
    ("a projection with a loop over its names", A01, "QKVProjection",
     "class QKVProjection(nn.Module):\n    def __init__(self, d_model, d_k, d_v):\n        super().__init__()\n"
     "        for name, size in (('w_q', d_k), ('w_k', d_k), ('w_v', d_v)):\n"
     "            setattr(self, name, nn.Linear(d_model, size, bias=False))\n\n"
     "    def forward(self, x, context=None):\n        source = x if context is None else context\n"
     "        return self.w_q(x), self.w_k(source), self.w_v(source)"),
    ("multi-head attention with helpers", A03, "MultiHeadAttention",
     "class MultiHeadAttention(nn.Module):\n    def __init__(self, d_model, num_heads, dropout=0.0):\n"
     "        super().__init__()\n        if d_model % num_heads:\n"
     "            raise ValueError('d_model % num_heads')\n"
     "        self.h, self.d_k = num_heads, d_model // num_heads\n"
     "        self.w_q, self.w_k, self.w_v, self.w_o = (nn.Linear(d_model, d_model) for _ in range(4))\n"
     "        self.dropout = nn.Dropout(dropout)\n        self.attention_weights = None\n\n"
     "    def _heads(self, x):\n        return split_heads(x, self.h)\n\n"
     "    def forward(self, query, key, value, mask=None):\n"
     "        q, k, v = (self._heads(f(t)) for f, t in zip((self.w_q, self.w_k, self.w_v), (query, key, value)))\n"
     "        out, self.attention_weights = scaled_dot_product_attention(q, k, v, mask)\n"
     "        return self.w_o(merge_heads(out))"),
]


@pytest.mark.parametrize("what, aid, answer, code", HONEST, ids=[h[0] for h in HONEST])
def test_honest_code_written_in_unusual_ways_is_not_found(what, aid, answer, code):
    if answer is None:
        found = findings(aid, {"softmax": SOFTMAX} if aid == A01 else None, added=code)
    else:
        found = findings(aid, {answer: code})
    assert found == [], [f.flag for f in found]
