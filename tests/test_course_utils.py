"""The runtime helpers: device choice, seeding, teaching checks, silence, plots."""
import sys
import warnings

import matplotlib

matplotlib.use("Agg")
import pytest
import torch

from course_utils import checks
from course_utils.device import pick_device
from course_utils.plotting import attention_heatmap, line_plot
from course_utils.seeding import seed_everything


def test_pick_device_auto_and_explicit(capsys):
    assert pick_device("cpu").type == "cpu"
    assert pick_device("auto").type in {"cuda", "mps", "cpu"}
    with pytest.raises(ValueError, match="one of"):
        pick_device("tpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_missing_gpu_says_what_to_do():
    with pytest.raises(RuntimeError, match="parameters cell"):
        pick_device("cuda")


def test_seed_everything_repeats_draws():
    seed_everything(3)
    a = torch.randn(4)
    seed_everything(3)
    assert torch.equal(a, torch.randn(4))


def test_expect_close_passes_and_hides_expected_values():
    reference = torch.tensor([0.123456, 0.654321])
    checks.expect_close(reference.clone(), reference, "weights")
    with pytest.raises(AssertionError) as failure:
        checks.expect_close(reference + 1.0, reference, "weights", hint="check the axis of your softmax")
    message = str(failure.value)
    assert "weights is wrong at 2 of 2 entries" in message and "axis of your softmax" in message
    assert "0.123" not in message and "0.654" not in message


def test_checks_reject_non_tensors_subclasses_and_wrong_shapes():
    class Liar(torch.Tensor):
        def __eq__(self, other):
            return True

    with pytest.raises(AssertionError, match="must be a torch.Tensor"):
        checks.expect_tensor([1.0, 2.0], "output")
    with pytest.raises(AssertionError, match="must be a torch.Tensor"):
        checks.expect_tensor(torch.zeros(2).as_subclass(Liar), "output")
    with pytest.raises(AssertionError, match=r"has shape \(2, 3\), but its shape should be \(3, 2\)"):
        checks.expect_shape(torch.zeros(2, 3), (3, 2), "scores")
    with pytest.raises(AssertionError, match="dtype"):
        checks.expect_close(torch.zeros(2), torch.zeros(2, dtype=torch.float64), "output")
    with pytest.raises(AssertionError, match="NaN or infinite"):
        checks.expect_finite(torch.tensor([1.0, float("nan")]), "weights")


def test_quiet_swallows_warnings_and_stderr(capfd):
    with checks.quiet():
        warnings.warn("a correct answer may warn", UserWarning)
        print("debug line", file=sys.stderr)
    captured = capfd.readouterr()
    assert captured.err == ""


def test_quiet_does_not_swallow_errors():
    with pytest.raises(ZeroDivisionError):
        with checks.quiet():
            1 / 0


def test_attention_heatmap_labels_everything():
    ax = attention_heatmap(torch.softmax(torch.randn(2, 3), -1), ["a", "b"], ["x", "y", "z"], title="t")
    assert ax.get_title() == "t" and ax.get_xlabel() and ax.get_ylabel()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["x", "y", "z"]
    with pytest.raises(ValueError, match="2-D"):
        attention_heatmap(torch.zeros(2, 2, 2))


def test_line_plot_labels_everything():
    ax = line_plot([1, 2, 3], {"a": [1, 2, 3], "b": [3, 2, 1]}, "title", "x", "y", logy=True)
    assert (ax.get_title(), ax.get_xlabel(), ax.get_ylabel()) == ("title", "x", "y")
    assert ax.get_legend() is not None
