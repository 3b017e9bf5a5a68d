"""The source screen: what a submission's code reaches for is found, with its cell and line; honest code is not.

Submissions are notebook 01 as released, with answers and cells written here: a right softmax and
one more thing, either a way to get grades without the work (found) or an honest, unusual way to
write code (not found). The whole catalogue's right answers and every solution are screened too.
"""
import copy

import nbformat
import pytest

from conftest import COURSE, IDS
from course_utils import ipynb
from course_utils.grader.judge import screen
from course_utils.qa.catalogue import load
from course_utils.qa.submissions import perfect, with_answers

AID = "01_queries_keys_values"
SOFTMAX = ("def softmax(x, dim=-1):\n    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
           "    return e / e.sum(dim=dim, keepdim=True)\n")


def _context(aid):
    """As a grading job reads it from the assignment's gradebook (whose cells are the solution's)."""
    solution = ipynb.read(COURSE.solution(aid))
    locked = [(c.source, bool(ipynb.nbgrader_meta(c).get("grade"))) for c in solution.cells
              if ipynb.nbgrader_meta(c).get("locked")]
    answers = [ipynb.nbgrader_meta(c)["grade_id"] for c in solution.cells if ipynb.nbgrader_meta(c).get("solution")]
    return screen.context(ipynb.read(COURSE.release(aid)), locked, aid, answers)


CONTEXT = _context(AID)


def _submission(answers, added=None, at=None):
    """Notebook 01 with `answers` ({grade id: source}) and, if given, a cell `added` before cell `at`."""
    release, solution = ipynb.read(COURSE.release(AID)), ipynb.read(COURSE.solution(AID))
    nb = with_answers(copy.deepcopy(release), solution, answers)
    if added is not None:
        cell = nbformat.v4.new_code_cell(added)
        nb.cells.insert(len(nb.cells) - 1 if at is None else at, cell)
    return nb


def _findings(answers, added=None, at=None):
    return screen.screen(_submission(answers, added, at), CONTEXT)


# Ways to reach past the exercise: each must be found. (what the code does, the code, a word of the finding)
REACHING = [
    ("patches a torch function", "torch.allclose = lambda *a, **k: True", "writes to torch.allclose"),
    ("patches through an alias", "t = torch\nt.allclose = lambda *a, **k: True", "writes to t.allclose"),
    ("patches with setattr", "setattr(torch.testing, 'assert_close', print)", "writes to torch.testing.assert_close"),
    ("patches with a computed name", "name = 'all' + 'close'\nsetattr(torch, name, print)", "cannot read"),
    ("patches a tensor method", "torch.Tensor.sum = lambda *a, **k: 0", "writes to torch.Tensor.sum"),
    ("patches through type()", "type(torch.zeros(1)).mean = lambda *a, **k: 0", "class or namespace"),
    ("patches through a variable", "T = type(torch.zeros(1))\nT.mean = lambda *a, **k: 0", "writes to T.mean"),
    ("patches what a function returns", "def f():\n    return torch.Tensor\nf().mean = len", "f() returns"),
    ("patches a course check", "checks.expect = lambda *a, **k: None", "writes to checks.expect"),
    ("patches the course's trusted functions", "trusted.matmul = torch.add", "writes to trusted.matmul"),
    ("deletes a torch function", "del torch.allclose", "writes to torch.allclose"),
    ("writes a provided object", "session.fast = False", "session"),
    ("rebinds a provided module", "class Yes:\n    pass\nchecks = Yes()", "rebinds checks"),
    ("rebinds a provided name by import", "import numpy as trusted", "rebinds trusted"),
    ("passes a module around", "def f(m):\n    m.allclose = len\nf(torch)", "passes the module torch"),
    ("hides a module in a list", "mods = [torch]\nmods[0].allclose = len", "passes the module torch"),
    ("changes a function's code", "checks.expect.__code__ = (lambda *a: None).__code__", ".__code__"),
    ("reaches an object's class", "k = torch.zeros(1).__class__", ".__class__"),
    ("reaches a function's globals by getattr", "g = getattr(softmax, '__globals__')", "__globals__"),
    ("reaches globals with a computed name", "k = '__glo' + 'bals__'\ng = getattr(softmax, k)", "cannot read"),
    ("walks frames", "def peek():\n    g = (i for i in [1])\n    return g.gi_frame.f_back", ".f_back"),
    ("walks a traceback", "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    f = e.__traceback__", "__traceback__"),
    ("reads IPython's history", "def peek():\n    return In[-1]", "reads In"),
    ("uses IPython's machinery", "get_ipython().ast_transformers.clear()", "get_ipython"),
    ("runs code from a string", "exec('torch.allclose = len')", "uses exec"),
    ("keeps eval for later", "run = eval", "uses eval"),
    ("imports by name", "m = __import__('os')", "__import__"),
    ("opens a file", "text = open('../../gradebook.db', 'rb').read()", "uses open"),
    ("loads a pickle", "m = torch.load('model.pt')", "torch.load"),
    ("writes a file", "plt.gcf().savefig('x.png')", ".savefig"),
    ("reads the namespace", "globals()['checks'] = None", "uses globals"),
    ("reads a module's namespace", "vars(torch)['allclose'] = len", "uses vars"),
    ("imports os", "import os\nprint(os.environ)", "imports os"),
    ("imports ctypes", "import ctypes", "imports ctypes"),
    ("imports gc", "import gc\nobjects = gc.get_objects()", "imports gc"),
    ("imports inspect", "import inspect", "imports inspect"),
    ("imports threading", "import threading\nthreading.Thread(target=print).start()", "imports threading"),
    ("imports signal", "from signal import signal, SIGALRM", "imports signal"),
    ("imports subprocess", "import subprocess", "imports subprocess"),
    ("imports socket", "import socket", "imports socket"),
    ("imports builtins", "import builtins\nbuiltins.print = len", "imports builtins"),
    ("imports importlib", "import importlib", "imports importlib"),
    ("sets a trace function", "import sys\nsys.settrace(None)", "sys.settrace"),
    ("reaches sys.modules", "import sys\nsys.modules['torch'].allclose = len", "sys.modules"),
    ("reaches torch's C core", "torch._C._set_grad_enabled(False)", "torch._C"),
    ("registers an operator kernel", "lib = torch.library.Library('aten', 'IMPL')", "torch.library"),
    ("calls an operator directly", "f = torch.ops.aten.softmax", "torch.ops"),
    ("hooks every module", "torch.nn.modules.module.register_module_forward_hook(print)", "register_module_"),
    ("intercepts torch functions", "from torch.overrides import TorchFunctionMode", "torch.overrides"),
    ("intercepts dispatch", "from torch.utils._python_dispatch import TorchDispatchMode", "_python_dispatch"),
    ("changes torch's defaults", "torch.set_default_dtype(torch.float64)", "set_default_dtype"),
    ("subclasses a tensor", "class Liar(torch.Tensor):\n    pass", "subclasses a tensor"),
    ("makes a class with type()", "Liar = type('Liar', (torch.Tensor,), {})", "type()"),
    ("defines __eq__", "class R:\n    def __eq__(self, other):\n        return True", "R.__eq__"),
    ("defines __torch_function__", "class R:\n    @classmethod\n    def __torch_function__(cls, *a):\n"
                                   "        return True", "__torch_function__"),
    ("defines __getattr__", "class Yes:\n    def __getattr__(self, name):\n        return print", "__getattr__"),
    ("uses a metaclass", "class A(metaclass=abc.ABCMeta):\n    pass", "metaclass"),
    ("passes setattr around", "import functools\nfunctools.partial(setattr, torch)('allclose', len)", "setattr"),
    ("reaches a dunder by attrgetter", "import operator\nf = operator.attrgetter('__globals__')", "__globals__"),
    ("imports everything", "from torch import *", "imports *"),
    ("sets a matplotlib backend", "plt.rcParams['backend'] = 'module://mine'", "rcParams"),
    ("runs a shell command", "!cat /etc/passwd", "shell command"),
    ("sets the environment", "%env NBGRADER_EXECUTION=", "%env"),
    ("changes tracebacks", "%xmode Verbose", "%xmode"),
    ("hides a patch in %timeit", "%timeit torch.allclose = len", "writes to torch.allclose"),
    ("hides an import in %%time", "%%time\nimport os", "imports os"),
    ("declares a test's variable global", "def softmax(x, dim=-1):\n    global out\n    out = x\n    return x",
     "global out"),
    ("reads a test's variable", "def softmax(x, dim=-1):\n    return torch.zeros_like(out)", "reads out"),
]

# Honest code written in unusual ways: none of it is found.
HONEST = [
    ("a helper class", "class Helper(nn.Module):\n    def __init__(self, d):\n        super().__init__()\n"
                       "        self.lin = nn.Linear(d, d)\n\n    def forward(self, x):\n        return self.lin(x)\n\n"
                       "    def __repr__(self):\n        return f'{type(self).__name__}()'"),
    ("einsum", "def pairwise(q, k):\n    return torch.einsum('...qd,...kd->...qk', q, k)"),
    ("much printing", "for i in range(1000):\n    print(i, softmax(torch.randn(3)).sum().item())"),
    ("printing to stderr", "import sys\nprint('shapes', (2, 3), file=sys.stderr)\nsys.stderr.flush()"),
    ("warnings", "import warnings\nwarnings.warn('check this')\n"
                 "warnings.filterwarnings('ignore', category=UserWarning)"),
    ("torch's threads", "torch.set_num_threads(1)\nprint(torch.get_num_threads())"),
    ("timing", "import time\nstart = time.perf_counter()\nsoftmax(torch.randn(100, 100))\n"
               "print(time.perf_counter() - start)"),
    ("%timeit and %%time", "%timeit softmax(torch.randn(3, 4))"),
    ("a timed cell", "%%time\ny = softmax(torch.randn(3, 4))\nprint(y.sum())"),
    ("plots", "%matplotlib inline\nplt.plot([1, 2, 3])\nplt.rcParams['figure.figsize'] = (8, 4)\nplt.show()"),
    ("setattr on self in a loop", "class P(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                  "        for n in ('a', 'b'):\n            setattr(self, n, nn.Linear(2, 2))\n"
                                  "        for i, n in enumerate(['c', 'd']):\n"
                                  "            setattr(self, f'layer_{n}', nn.Linear(2, 2))\n\n"
                                  "    def forward(self, x):\n        return getattr(self, 'a')(x)"),
    ("getattr with a default", "w = getattr(nn.Linear(2, 3), 'weight', None)\nok = hasattr(w, 'grad')"),
    ("a dataclass with an order", "from dataclasses import dataclass, field\n\n@dataclass(order=True)\n"
                                  "class Beam:\n    score: float\n    tokens: list = field(default_factory=list)"),
    ("__lt__ for heapq", "import heapq\nclass Beam:\n    def __init__(self, s):\n        self.s = s\n\n"
                         "    def __lt__(self, other):\n        return self.s < other.s\n"
                         "heapq.heapify([Beam(1), Beam(0)])"),
    ("cudnn settings", "torch.backends.cudnn.deterministic = True"),
    ("parameters set by hand", "layer = nn.Linear(2, 2)\nlayer.weight = nn.Parameter(torch.zeros(2, 2))\n"
                               "layer.bias.requires_grad = False\n"
                               "next(iter(layer.parameters())).requires_grad = False"),
    ("a counter of its own", "calls = 0\n\ndef bump():\n    global calls\n    calls += 1"),
    ("math and seeds", "import math\nimport random\nrandom.seed(0)\ntorch.manual_seed(0)\nprint(math.sqrt(2))"),
    ("decorators", "import functools\n\n@torch.no_grad()\n@functools.lru_cache(maxsize=None)\ndef f(n):\n"
                   "    return n * 2"),
    ("a main guard and versions", "if __name__ == '__main__':\n    print(torch.__version__)"),
    ("lists of classes", "pairs = [(nn.Linear, 3)]\npairs[0] = (nn.Linear, 4)\nsizes = {}\nsizes['a'] = 1"),
    ("a custom autograd function", "class Double(torch.autograd.Function):\n    @staticmethod\n"
                                   "    def forward(ctx, x):\n        return 2 * x\n\n    @staticmethod\n"
                                   "    def backward(ctx, g):\n        return 2 * g"),
    ("the progress summary", "from course_utils.notebook import progress\nprogress.summary()"),
    ("its own x and out", "x = torch.randn(2, 3)\nout = softmax(x)\nprint(out, out.sum(-1))"),
    ("torch's softmax outside the exercise, to compare", "print(torch.softmax(torch.randn(3), dim=-1))"),
    ("numpy", "import numpy as np\nprint(np.exp(np.array([1.0, 2.0])).sum())"),
]


@pytest.mark.parametrize("what, code, says", REACHING, ids=[r[0] for r in REACHING])
def test_code_that_reaches_past_the_exercise_is_found(what, code, says):
    in_answer = code.startswith(("def softmax", "%", "!"))
    found = _findings({"softmax": code if in_answer else SOFTMAX + "\n" + code})
    assert any(says in f.flag for f in found), [f.flag for f in found]
    assert all(f.flag.startswith("source: softmax, line ") for f in found), "the answer cell, by its grade id"


@pytest.mark.parametrize("what, code", HONEST, ids=[h[0] for h in HONEST])
def test_honest_code_written_in_unusual_ways_is_not_found(what, code):
    assert _findings({"softmax": SOFTMAX}, added=code) == []


def test_a_finding_names_its_cell_and_line():
    [found] = _findings({"softmax": SOFTMAX}, added="x = 1\n\nimport os", at=5)
    assert found.flag == "source: cell 6, line 3: imports os (not a module the exercises use)"
    [found] = _findings({"softmax": SOFTMAX.replace("    return", "    import gc\n    return")})
    assert (found.cell, found.line) == ("softmax", 3)


def test_a_course_cell_is_not_the_students_but_an_edited_one_is():
    nb = _submission({"softmax": SOFTMAX})
    teaching = next(c for c in nb.cells if c.cell_type == "code" and not ipynb.nbgrader_meta(c)
                    and "import" not in c.source)
    assert screen.screen(nb, CONTEXT) == []
    teaching.source += "\nimport os"
    assert [f.what for f in screen.screen(nb, CONTEXT)] == ["imports os (not a module the exercises use)"]


def test_a_shortcut_is_found_in_the_answer_and_in_a_helper_it_calls_not_elsewhere():
    helper = "def helper(x, dim):\n    return x.softmax(dim)"
    calls = "def softmax(x, dim=-1):\n    return helper(x, dim)"
    found = _findings({"softmax": calls}, added=helper, at=5)
    assert [f.flag for f in found] == ["source: cell 6, line 2: uses .softmax, a shortcut softmax (which calls "
                                       "helper) may not take"]
    assert _findings({"softmax": SOFTMAX}, added=helper, at=5) == [], "a helper the answer does not call"
    imported = "from torch.nn.functional import softmax as sm\n\ndef softmax(x, dim=-1):\n    return sm(x, dim)"
    assert any("torch.nn.functional.softmax" in f.what for f in _findings({"softmax": imported}))
    sdpa = SOFTMAX + "\nprint(F.scaled_dot_product_attention)"
    assert any("scaled_dot_product_attention" in f.what for f in _findings({"softmax": sdpa}))


def test_metadata_does_not_decide_whose_cell_it_is():
    """A student's cell wearing a locked cell's metadata (it runs: the real cell keeps the id) is screened;
    an answer whose metadata was taken off is still its exercise's answer."""
    nb = _submission({"softmax": SOFTMAX}, added="import os", at=5)
    setup = next(c for c in nb.cells if ipynb.nbgrader_meta(c).get("grade_id") == "setup")
    nb.cells[5].metadata = copy.deepcopy(setup.metadata)
    assert nb.cells[5].source == "import os" and nb.cells.index(setup) < 5
    assert [f.what for f in screen.screen(nb, CONTEXT)] == ["imports os (not a module the exercises use)"]
    nb = _submission({"softmax": "def softmax(x, dim=-1):\n    return x.softmax(dim)"})
    del ipynb.answer_cells(nb)["softmax"].metadata["nbgrader"]
    assert any("shortcut" in f.what for f in screen.screen(nb, CONTEXT))


def test_code_that_does_not_parse_is_not_screened():
    assert _findings({"softmax": "def softmax(x, dim=-1:\n    import os"}) == [], "it fails when it runs"


@pytest.mark.slow
@pytest.mark.parametrize("aid", IDS)
def test_solutions_and_the_catalogues_right_answers_are_not_found(aid):
    ctx = _context(aid)
    release, solution = ipynb.read(COURSE.release(aid)), ipynb.read(COURSE.solution(aid))
    assert screen.screen(perfect(copy.deepcopy(release), solution), ctx) == []
    for entry in load(COURSE, aid):
        if entry.kind == "right":
            answer = {entry.grade_id: entry.path.read_text()}
            found = screen.screen(with_answers(copy.deepcopy(release), solution, answer), ctx)
            assert found == [], f"{entry.student_id}: {[f.flag for f in found]}"


@pytest.mark.parametrize("aid, grade_id, name", [
    ("01_queries_keys_values", "softmax", "calls_torch_softmax"),
    ("01_queries_keys_values", "soft_lookup", "calls_sdpa"),
    ("02_scaled_dot_product_attention", "scaled_dot_product_attention", "calls_torch_sdpa"),
    ("03_multi_head_attention", "MultiHeadAttention", "calls_torch_functional_mha"),
    ("06_layer_norm_residual_ffn", "LayerNorm", "calls_f_layer_norm"),
    ("06_layer_norm_residual_ffn", "LayerNorm", "subclasses_nn_layernorm"),
])
def test_the_catalogues_forbidden_shortcuts_are_found(aid, grade_id, name):
    [entry] = [e for e in load(COURSE, aid) if e.grade_id == grade_id and e.name == name]
    release, solution = ipynb.read(COURSE.release(aid)), ipynb.read(COURSE.solution(aid))
    found = screen.screen(with_answers(release, solution, {grade_id: entry.path.read_text()}), _context(aid))
    assert any("a shortcut this exercise may not take" in f.what and f.cell == grade_id for f in found), found
