"""`course bench --quick` runs every benchmark part on the CPU and prints its tables."""
import pytest

from conftest import run_course


@pytest.mark.slow
def test_bench_quick_prints_every_part():
    result = run_course("bench", "--quick", timeout=1200)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    for heading in ("seconds (fast, CPU)", "per minute", "course / nn.MHA", "4. Training (notebook 07)",
                    "5. Greedy decoding with a KV cache"):
        assert heading in out, heading
    assert "wrote build/bench-quick/benchmarks.md" in out


@pytest.mark.slow
def test_bench_attention_compares_with_torch():
    result = run_course("bench", "attention", "--quick", timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "course/nn" in result.stdout and "cpu" in result.stdout


@pytest.mark.parametrize("part", ["train", "decode"])
def test_bench_train_and_decode_quick_report_without_retraining(part):
    result = run_course("bench", part, "--quick", timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "metric" in result.stdout
