"""`course demo`, the README's main job, runs end to end and gives the expected grades."""
import pytest

from conftest import run_course


@pytest.mark.slow
def test_course_demo_end_to_end():
    result = run_course("demo", timeout=1200)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    for step in ("[1/4] Release check", "[2/4] Executing", "[3/4] Sample class", "[4/4] Autograding"):
        assert step in out
    assert "in sync" in out and "Demo passed" in out
