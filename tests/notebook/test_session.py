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
    assert "fast mode: off" in capsys.readouterr().out
