"""The course's figures label everything they draw."""
import matplotlib

matplotlib.use("Agg")
import pytest  # noqa: E402
import torch  # noqa: E402

from course_utils.notebook.plotting import attention_heatmap, line_plot  # noqa: E402


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
