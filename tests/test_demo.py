"""`course demo`, the README's main job, end to end.

The demo executes every solution notebook with papermill in fast mode on the CPU (on a
machine without a GPU, as CI is), so this test is also the suite's check that every
notebook runs without error: one execution serves both, which keeps the suite short.
"""
import re

import pytest

from conftest import IDS, ROOT, run_course


@pytest.mark.slow
def test_course_demo_end_to_end():
    result = run_course("demo", timeout=1800)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    for step in ("[1/4] Release check", "[2/4] Executing", "[3/4] Sample class", "[4/4] Autograding"):
        assert step in out
    assert "fast mode on the CPU" in out, "CI has no GPU: the demo runs the fast mode"
    for aid in IDS:
        assert re.search(rf"^{aid}\s+ok\s", out, flags=re.M), f"{aid} did not execute cleanly:\n{out}"
        assert (ROOT / "build" / "executed" / f"{aid}.ipynb").is_file()
    assert "in sync" in out and "Demo passed" in out
