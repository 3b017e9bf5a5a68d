"""Choosing the device and seeding: what every notebook's setup cell does first."""
import pytest
import torch

from course_utils.notebook.device import pick_device
from course_utils.notebook.seeding import seed_everything


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
