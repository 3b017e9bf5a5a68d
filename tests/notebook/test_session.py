"""The setup cell: one import line, and a session that knows whether it is graded."""
import subprocess
import sys

from course_utils.notebook import session


def test_the_setup_cells_one_import_line_gives_everything_and_captures_torch_first():
    code = ("import sys\n"
            "from course_utils.notebook import checks, trusted, setup_notebook, attention_heatmap, line_plot\n"
            "import torch\n"
            "assert trusted.softmax is torch.softmax and callable(setup_notebook) and callable(line_plot)\n"
            "assert 'course_utils.qa.figure_audit' not in sys.modules and 'nbgrader' not in sys.modules\n"
            "print('ok')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "ok", result.stderr


def test_grading_forces_fast_mode(monkeypatch, capsys):
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    state = session.setup_notebook("cpu", fast=False, seed=3)
    assert state.grading and state.fast and state.seed == 3 and state.device.type == "cpu"
    monkeypatch.delenv("NBGRADER_EXECUTION")
    state = session.setup_notebook("cpu", fast=False, seed=0)
    assert not state.grading and not state.fast
    assert "fast mode: off (as set)" in capsys.readouterr().out


def test_fast_auto_is_fast_on_a_cpu_and_full_on_a_cuda_gpu_and_says_which(monkeypatch, capsys):
    import torch

    monkeypatch.delenv("NBGRADER_EXECUTION", raising=False)
    assert session.choose_fast("auto", torch.device("cpu"), grading=False)[0] is True
    assert session.choose_fast("auto", torch.device("mps"), grading=False)[0] is True
    assert session.choose_fast("auto", torch.device("cuda"), grading=False)[0] is False
    assert session.choose_fast(False, torch.device("cpu"), grading=False)[0] is False, "a student's choice stands"
    assert session.choose_fast(False, torch.device("cuda"), grading=True)[0] is True, "grading is always fast"
    state = session.setup_notebook("cpu", fast="auto", seed=0)
    assert state.fast and "fast mode: on (auto: cpu; set fast = False for full mode)" in capsys.readouterr().out


def test_fast_refuses_a_value_it_does_not_know():
    import pytest
    import torch

    with pytest.raises(ValueError, match="auto"):
        session.choose_fast("yes", torch.device("cpu"), grading=False)
