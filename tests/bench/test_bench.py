"""`course bench --quick` runs every benchmark part on the CPU and prints its tables."""
import pytest

from conftest import ROOT, run_course


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


def test_bench_mfu_without_a_gpu_checks_the_code_path():
    result = run_course("bench", "mfu", "--quick", timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "course (notebook 07)" in result.stdout and "nn.Transformer" in result.stdout
    assert "MFU needs a GPU" in result.stdout


def test_a_rewrite_of_the_benchmarks_keeps_the_gpu_rows(tmp_path):
    from course_utils.bench.suite import GPU_SECTION, kept_gpu_section

    page = tmp_path / "benchmarks.md"
    assert kept_gpu_section(page) == ""
    page.write_text("# Benchmarks\n\nCPU rows" + GPU_SECTION + "\n\n| cuda | 1.0 |\n")
    assert kept_gpu_section(page) == GPU_SECTION + "\n\n| cuda | 1.0 |\n"
    assert (ROOT / "docs" / "benchmarks.md").read_text().count(GPU_SECTION) == 1
