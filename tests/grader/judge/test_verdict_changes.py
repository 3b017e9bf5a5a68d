"""A test judged in the grader sees the changes the student's code makes to the test's tensors, as in one process.

The case that was missed: a tensor the test handed to the student's code, kept there and later replaced
through `tensor.data = torch.cat(...)` (a new storage and shape, and no new version): notebook 09's
`KVCache` that grows the first tensor it was given.
"""
import os
import sys
from pathlib import Path

import pytest

from course_utils.grader.judge.verdicts.cell import Notebook, judge
from course_utils.grader.judge.verdicts.channel import Channel

SETUP = "import torch\nfrom course_utils.notebook import checks\n"
ANSWER = '''
class Grows:
    def __init__(self, returns_copy):
        self.kept, self.returns_copy = None, returns_copy

    def update(self, k):
        if self.kept is None:
            self.kept = k
        else:
            self.kept.data = torch.cat([self.kept, k])
        return self.kept.clone() if self.returns_copy and len(self.kept) > 2 else self.kept
'''
TEST = '''
g = Grows({returns_copy})
k = torch.zeros(2)
g.update(k)
g.update(torch.ones(2))
checks.expect(tuple(k.shape) == (2,), "the first tensor given was grown in place")
'''


@pytest.fixture(scope="module")
def kernel():
    from jupyter_client.manager import start_new_kernel

    path = os.environ.get("PATH", "")
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + path   # the kernelspec runs `python`
    try:
        km, kc = start_new_kernel(kernel_name="python3")
    finally:
        os.environ["PATH"] = path
    for code in (SETUP, ANSWER):
        assert kc.execute_interactive(code, timeout=120)["content"]["status"] == "ok"
    yield km
    kc.stop_channels()
    km.shutdown_kernel(now=True)


@pytest.mark.slow
@pytest.mark.parametrize("returns_copy", [False, True])
def test_a_tensor_grown_through_data_in_the_kernel_is_seen(kernel, returns_copy):
    notebook = Notebook(b"salt")
    notebook.define(SETUP)
    channel = Channel(kernel.get_connection_info(), kernel.is_alive)
    try:
        verdict = judge(TEST.format(returns_copy=returns_copy), "test", notebook, channel, 60)
    finally:
        channel.close()
    assert not verdict.passed, verdict.outputs
    assert "grown in place" in verdict.outputs[-1]["evalue"]
