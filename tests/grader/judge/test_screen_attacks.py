"""Code that reaches past the exercises is found: each attack raises a finding that says what it reached.

The attacks are those of a student who reads the tests and the grader and wants the grade without
the work, written the general ways that defeat a screen that follows names rather than values:
through a parameter, a call's result, an alias, a container, an attribute of a provided module
(`checks.os`), a replaced tensor method, code run from a string by an allowed package, a forbidden
shortcut under another name, a module or class handed around as a value. Each program runs in a
submission of notebook 01 (02, 03 or 06 where the exercise it targets lives) with right answers.
"""
import pytest

from screening import SOFTMAX, findings

A01, A02, A03, A06 = ("01_queries_keys_values", "02_scaled_dot_product_attention", "03_multi_head_attention",
                      "06_layer_norm_residual_ffn")
LOOKUP = "def soft_lookup(query, keys, values):\n    return {}\n"

# (what, code added as a cell of notebook 01, a word of the finding)
THROUGH_VALUES = [
    ("a module written through a parameter", "def f(m):\n    m.allclose = lambda *a, **k: True\nf(torch)",
     "m is a parameter"),
    ("a tensor method replaced through a parameter", "def f(T):\n    T.cpu = lambda self: self\nf(torch.Tensor)",
     "writes to T.cpu"),
    ("a tensor method replaced through a class handed in", "def f(T):\n    T.cpu = lambda self: self\n"
                                                           "f(trusted.Tensor)",
     "uses the class trusted.Tensor (torch.Tensor) as a value"),
    ("a method replaced through what a function returns", "def g():\n    return torch.Tensor\ng().mean = len",
     "writes to g().mean (part of torch.Tensor"),
    ("a method replaced through type()", "type(torch.zeros(1)).mean = lambda *a, **k: 0",
     "writes to type(torch.zeros(1)).mean"),
    ("a method replaced through a variable holding type()", "T = type(torch.zeros(1))\n"
                                                            "T.mean = len", "writes to T.mean"),
    ("a class changed through a helper's parameter", "def patch(layer):\n    type(layer).forward = lambda s, x: x\n"
     "patch(nn.Linear(2, 2))", "writes to type(layer).forward"),
    ("a class changed by setattr on a parameter", "def patch(cls, name, f):\n    setattr(cls, name, f)",
     "setattr with a name the screen cannot read"),
    ("a class changed by setattr, named", "def patch(cls, f):\n    setattr(cls, 'cpu', f)", "setattr of cls.cpu"),
    ("a class changed by object.__setattr__", "object.__setattr__(torch.Tensor, 'cpu', len)", ".__setattr__"),
    ("a class decorated in place", "import dataclasses\ndataclasses.dataclass(torch.Tensor)",
     "uses the class torch.Tensor as a value"),
    ("the test's model changed through a parameter", "def helper(model):\n"
     "    next(iter(model.parameters())).data = torch.zeros(1)", "the screen cannot follow what it belongs to"),
    ("a provided module's os", "checks.os.system('cat /etc/passwd')", "reaches checks.os"),
    ("a provided module's sys", "checks.sys.modules['torch'].allclose = len", "reaches checks.sys"),
    ("a provided module's torch", "trusted.torch.allclose = len", "reaches trusted.torch"),
    ("torch's own imports", "F.importlib.import_module('os')", "reaches F.importlib"),
    ("a module in a list", "mods = [torch]\nmods[0].allclose = len", "uses the module torch as a value"),
    ("a module aliased", "t = torch\nt.allclose = len", "uses the module torch as a value"),
    ("a module as a default", "def f(x, m=torch):\n    return m", "uses the module torch as a value"),
    ("a module returned", "def f():\n    return checks", "uses the module checks"),
    ("a module in a lambda", "get = lambda: nn\nget().Linear = None", "uses the module nn"),
    ("a module passed by getattr", "m = getattr(torch, 'nn')\nm.Linear = None", "uses the module"),
    ("a module reached by a name of its own", "import torch as t2\nt2.allclose = len", "writes to t2.allclose"),
    ("a class in a dict", "classes = {'t': torch.Tensor}\nclasses['t'].sum = len", "uses the class torch.Tensor"),
    ("a provided object written", "session.fast = False", "the notebook provides session"),
    ("a provided object kept in an object of its own", "class Box:\n    pass\nb = Box()\nb.s = session\n"
     "b.s.fast = False", "the notebook provides session"),
    ("a provided object kept in a dict", "d = {}\nd['s'] = session\nd['s'].fast = False",
     "the notebook provides session"),
    ("a provided object kept in a list", "box = []\nbox.append(session)\nbox.pop().fast = False",
     "the notebook provides session"),
    ("a provided object kept in a heap", "import heapq\nh = []\nheapq.heappush(h, (0, session))\n"
     "h[0][1].fast = False", "the notebook provides session"),
    ("a provided object kept in a buffer", "class M(nn.Module):\n    def __init__(self):\n"
     "        super().__init__()\n        self.register_buffer('s', session)\n\n    def f(self):\n"
     "        self.s.fast = False", "the notebook provides session"),
    ("a provided object kept in an array", "import numpy as np\narr = np.array([session], dtype=object)\n"
     "arr[0].fast = False", "writes to arr[0].fast"),
    ("a provided object picked by an itemgetter", "import operator\noperator.itemgetter(0)([session]).fast = False",
     "the screen cannot follow"),
    ("a provided object written through self under another name",
     "class Box:\n    def keep(self, thing):\n        me = self\n        me.thing = thing\n\n"
     "    def spoil(self):\n        self.thing.fast = False", "thing is a parameter"),
    ("a provided check replaced", "checks.expect = lambda *a, **k: None", "writes to checks.expect"),
    ("a test's variable written", "def f():\n    gen.manual_seed = print", "f reads gen, a variable of the test cells"),
    ("a function's code replaced", "checks.expect.__code__ = (lambda *a: None).__code__", ".__code__"),
    ("an object's namespace", "def f(x):\n    x.__dict__['forward'] = print", ".__dict__"),
    ("a method not on the allowlist, on a parameter", "def f(x):\n    return x.system('ls')", "calls .system"),
    ("a method not on the allowlist, by getattr", "def f(x):\n    return getattr(x, 'system')('ls')", "calls .system"),
]

STRINGS_TO_CODE = [
    ("exec", "exec('torch.allclose = len')", "uses exec"),
    ("eval kept for later", "run = eval", "uses eval"),
    ("compile", "code = compile('1', 'x', 'eval')", "uses compile"),
    ("__import__", "m = __import__('os')", "uses __import__"),
    ("help, which imports by name", "help('os')", "uses help"),
    ("typing's forward references", "import typing\ntyping.get_type_hints(softmax)", "typing.get_type_hints"),
    ("typing's ForwardRef", "from typing import ForwardRef", "typing.ForwardRef"),
    ("singledispatch, which evaluates annotations", "import functools\n\n@functools.singledispatch\ndef f(x):\n"
     "    pass", "functools.singledispatch"),
    ("torch's timers", "import torch.utils.benchmark as b\n"
                       "b.Timer('import os').timeit(1)", "imports torch.utils.benchmark"),
    ("torch's timers by attribute", "t = torch.utils.benchmark.Timer('import os')", "reaches torch.utils.benchmark"),
    ("torch's environment report", "from torch.utils.collect_env import run\nrun('ls')", "torch.utils.collect_env"),
    ("the standard library's timers", "import timeit\ntimeit.timeit('import os')", "imports timeit"),
    ("pickle", "import pickle\npickle.loads(b'')", "imports pickle"),
    ("torch.load", "m = torch.load('model.pt')", "reaches torch.load"),
    ("numpy's loader", "import numpy as np\nnp.load('x.npy', allow_pickle=True)", "reaches np.load"),
    ("torch.compile with a backend", "f = torch.compile(softmax, backend='mine')", "calls torch.compile with backend"),
    ("torch.compile with options", "f = torch.compile(softmax, options={'cpp.cxx': 'sh'})",
     "calls torch.compile with options"),
    ("a module compiled with a backend", "m = nn.Linear(2, 2)\n"
                                         "m.compile(backend='mine')", "calls .compile with backend"),
    ("data loader workers", "d = torch.utils.data.DataLoader([1], num_workers=2)", "calls torch.utils.data.DataLoader"),
    ("a format reaching globals", "s = '{0.__globals__}'.format(softmax)", "formats .__globals__"),
    ("a format the screen cannot read", "def f(t, x):\n    return t.format(x)", "template the screen cannot read"),
    ("attrgetter of a dunder", "import operator\nf = operator.attrgetter('__globals__')", "attrgetter of __globals__"),
    ("getattr of a dunder built from parts", "k = '__glo' + 'bals__'\n"
                                             "g = getattr(softmax, k)", "getattr of __globals__"),
    ("getattr with a name from a parameter", "def f(name):\n    return getattr(torch, name)",
     "getattr with a name the screen cannot read"),
    ("a matplotlib backend", "plt.rcParams['backend'] = 'module://mine'", "plt.rcParams"),
    ("a matplotlib backend switched", "plt.switch_backend('module://mine')", "plt.switch_backend"),
    ("setitem on matplotlib's settings", "import operator\noperator.setitem(plt.rcParams, 'backend', 'x')",
     "operator.setitem"),
    ("a shell command", "!cat /etc/passwd", "runs a shell command"),
    ("a shell command's output", "x = !ls", "runs a shell command"),
    ("the environment changed", "%env NBGRADER_EXECUTION=", "%env"),
    ("a file run", "%run other.py", "%run"),
    ("a cell magic", "%%bash\nls", "%bash"),
    ("IPython's config evaluated", "%config InlineBackend.figure_format = __import__('os').getcwd()", "%config"),
    ("a matplotlib backend magic", "%matplotlib module://mine", "%matplotlib"),
    ("a patch hidden in %timeit", "%timeit torch.allclose = len", "writes to torch.allclose"),
    ("an import hidden in %%time", "%%time\nimport os", "imports os"),
    ("an import hidden in a nested magic", "%%time\n%timeit import os", "imports os"),
]

MACHINERY = [
    ("os", "import os\nprint(os.environ)", "imports os"),
    ("ctypes", "import ctypes", "imports ctypes"),
    ("gc", "import gc\nobjects = gc.get_objects()", "imports gc"),
    ("inspect", "import inspect", "imports inspect"),
    ("subprocess", "import subprocess", "imports subprocess"),
    ("builtins", "import builtins\nbuiltins.print = len", "imports builtins"),
    ("importlib", "import importlib", "imports importlib"),
    ("signal", "from signal import signal, SIGALRM", "imports signal"),
    ("multiprocessing through threading's neighbour", "from concurrent.futures import ProcessPoolExecutor",
     "concurrent.futures.ProcessPoolExecutor"),
    ("sys.settrace", "import sys\nsys.settrace(None)", "sys.settrace"),
    ("sys.modules", "import sys\nsys.modules['torch'].allclose = len", "sys.modules"),
    ("sys._getframe", "import sys\nf = sys._getframe(1)", "sys._getframe"),
    ("torch's C core", "torch._C._set_grad_enabled(False)", "torch._C"),
    ("an operator library", "lib = torch.library.Library('aten', 'IMPL')", "torch.library"),
    ("an operator called directly", "f = torch.ops.aten.softmax", "torch.ops"),
    ("every module hooked", "torch.nn.modules.module.register_module_forward_hook(print)", "torch.nn.modules"),
    ("torch functions intercepted", "from torch.overrides import TorchFunctionMode", "torch.overrides"),
    ("dispatch intercepted", "from torch.utils._python_dispatch import TorchDispatchMode",
     "torch.utils._python_dispatch"),
    ("torch's defaults changed", "torch.set_default_dtype(torch.float64)", "torch.set_default_dtype"),
    ("a file read as a tensor", "t = torch.from_file('x', size=3)", "torch.from_file"),
    ("a file opened", "text = open('../../gradebook.db', 'rb').read()", "uses open"),
    ("a figure saved", "plt.gcf().savefig('x.png')", "calls .savefig"),
    ("the namespace", "globals()['checks'] = None", "uses globals"),
    ("a module's namespace", "vars(torch)['allclose'] = len", "uses vars"),
    ("the builtins by name", "b = __builtins__", "uses __builtins__"),
    ("IPython's machinery", "get_ipython().ast_transformers.clear()", "uses get_ipython"),
    ("IPython's history", "def peek():\n    return In[-1]", "reads In"),
    ("frames", "def peek():\n    g = (i for i in [1])\n    return g.gi_frame.f_back", ".gi_frame"),
    ("a traceback's frames", "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    f = e.__traceback__",
     ".__traceback__"),
    ("a tensor subclass", "class Liar(torch.Tensor):\n    pass", "subclasses a tensor"),
    ("a tensor subclass by another name", "class Liar(trusted.Tensor):\n    pass", "subclasses a tensor"),
    ("a subclass of a class from a call", "class Liar(type(torch.zeros(1))):\n    pass", "cannot follow"),
    ("a class made with type()", "Liar = type('Liar', (object,), {})", "type()"),
    ("a class made with type's type", "T = type(int)\nLiar = T('Liar', (), {'__eq__': lambda s, o: True})", "type()"),
    ("a class made with a class's class", "Liar = softmax.__class__.__class__('Liar', (), {})", "type()"),
    ("__eq__", "class R:\n    def __eq__(self, other):\n        return True", "R.__eq__"),
    ("__torch_function__", "class R:\n    @classmethod\n    def __torch_function__(cls, *a):\n        return True",
     "__torch_function__"),
    ("__bool__", "class R:\n    def __bool__(self):\n        return True", "R.__bool__"),
    ("a metaclass", "import abc\nclass A(metaclass=abc.ABCMeta):\n    pass", "metaclass"),
    ("setattr handed around", "import functools\nfunctools.partial(setattr, torch)('allclose', len)",
     "passes setattr around"),
    ("everything imported", "from torch import *", "imports *"),
    ("a builtin the tests use, rebound", "def isinstance(*a):\n    return True",
     "rebinds isinstance, which the test cells call"),
    ("a builtin the tests use, assigned", "bool = lambda *a: True", "rebinds bool"),
    ("a provided name rebound", "class Yes:\n    pass\nchecks = Yes()", "rebinds checks"),
    ("a provided name rebound by import", "import numpy as trusted", "rebinds trusted"),
    ("a test's variable declared global", "def f(x):\n    global out\n    out = x", "declares global out"),
]

# (what, assignment, the answer cell's grade id, its source, a word of the finding)
SHORTCUTS = [
    ("torch's softmax", A01, "softmax", "def softmax(x, dim=-1):\n    return torch.softmax(x, dim)", "torch.softmax"),
    ("the notebook's alias of it", A01, "softmax", "def softmax(x, dim=-1):\n    return trusted.softmax(x, dim)",
     "trusted.softmax (torch.softmax)"),
    ("a method of the tensor", A01, "softmax", "def softmax(x, dim=-1):\n    return x.softmax(dim)", "uses .softmax"),
    ("the tensor class's method", A01, "softmax",
     "def softmax(x, dim=-1):\n    return torch.Tensor.softmax(x, dim)", "torch.Tensor.softmax"),
    ("an import under another name", A01, "softmax",
     "from torch.nn.functional import softmax as sm\n\ndef softmax(x, dim=-1):\n    return sm(x, dim)",
     "torch.nn.functional.softmax"),
    ("a module imported under another name", A01, "softmax",
     "import torch.nn.functional as nnf\n\ndef softmax(x, dim=-1):\n    return nnf.softmax(x, dim)", "nnf.softmax"),
    ("getattr with a constant", A01, "softmax",
     "def softmax(x, dim=-1):\n    return getattr(F, 'soft' + 'max')(x, dim)", "torch.nn.functional.softmax"),
    ("a function held in a dict", A01, "softmax",
     "OPS = {'s': torch.softmax}\n\ndef softmax(x, dim=-1):\n    return OPS['s'](x, dim)", "torch.softmax"),
    ("a function as a default", A01, "softmax",
     "def softmax(x, dim=-1, f=F.softmax):\n    return f(x, dim)", "torch.nn.functional.softmax"),
    ("a module class", A01, "softmax", "def softmax(x, dim=-1):\n    return nn.Softmax(dim)(x)", "torch.nn.Softmax"),
    ("the notebook's sdpa", A01, "soft_lookup", LOOKUP.format("trusted.sdpa(query, keys, values)"),
     "trusted.sdpa (torch.nn.functional.scaled_dot_product_attention)"),
    ("sdpa by another name", A02, "scaled_dot_product_attention",
     "from torch.nn.functional import scaled_dot_product_attention as attend\n\n"
     "def scaled_dot_product_attention(query, key, value, mask=None):\n    return attend(query, key, value), None",
     "scaled_dot_product_attention"),
    ("torch's multi-head attention", A03, "MultiHeadAttention",
     "class MultiHeadAttention(trusted.MultiheadAttention):\n    pass", "trusted.MultiheadAttention"),
    ("torch's layer norm, as a base class", A06, "LayerNorm", "class LayerNorm(trusted.LayerNorm):\n    pass",
     "trusted.LayerNorm (torch.nn.LayerNorm)"),
    ("the notebook's own function that calls sacreBLEU", "08_decoding_and_evaluation", "corpus_bleu",
     "def corpus_bleu(hypotheses, references, max_n=4):\n    return sacre_scores([], hypotheses).score",
     "sacre_scores (which reaches sacrebleu.corpus_bleu)"),
]


@pytest.mark.parametrize("what, code, says", THROUGH_VALUES + STRINGS_TO_CODE + MACHINERY,
                         ids=[a[0] for a in THROUGH_VALUES + STRINGS_TO_CODE + MACHINERY])
def test_code_that_reaches_past_the_exercises_is_found(what, code, says):
    found = findings(A01, {"softmax": SOFTMAX}, added=code)
    assert any(says in f.what for f in found), [f.flag for f in found]
    assert all(f.cell.startswith("cell ") for f in found), "an added cell is named by its place"


@pytest.mark.parametrize("what, aid, grade_id, code, says", SHORTCUTS, ids=[s[0] for s in SHORTCUTS])
def test_a_forbidden_shortcut_is_found_whatever_it_is_called(what, aid, grade_id, code, says):
    found = findings(aid, {grade_id: code})
    assert any(says in f.what and "a shortcut this exercise may not take" in f.what and f.cell == grade_id
               for f in found), [f.flag for f in found]


def test_a_shortcut_is_found_in_a_helper_the_answer_calls_under_any_name():
    helper = "import torch.nn.functional as nnf\n\ndef helper(x, dim):\n    pick = nnf.softmax\n    return pick(x, dim)"
    calls = "def softmax(x, dim=-1):\n    return helper(x, dim)"
    found = findings(A01, {"softmax": calls}, added=helper, at=5)
    assert "source: cell 6, line 4: uses nnf.softmax (torch.nn.functional.softmax), a shortcut softmax (which calls " \
           "helper) may not take" in [f.flag for f in found], [f.flag for f in found]
    assert findings(A01, {"softmax": SOFTMAX}, added=helper, at=5) == [], "a helper the answer does not call"


def test_a_shortcut_is_found_in_a_class_the_answer_reaches_through_an_object():
    made = "class Softmaxer:\n    def __call__(self, x, dim=-1):\n        return x.softmax(dim)\n\nsoft = Softmaxer()"
    found = findings(A01, {"softmax": "softmax = soft"}, added=made, at=5)
    assert [f.flag for f in found] == ["source: cell 6, line 3: uses .softmax, a shortcut softmax (which calls "
                                       "Softmaxer) may not take"]
