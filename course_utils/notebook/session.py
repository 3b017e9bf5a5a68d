"""The setup every course notebook runs right after its `parameters` cell."""
from __future__ import annotations

import os
from dataclasses import dataclass

import torch

from course_utils.notebook import tracing
from course_utils.notebook.device import pick_device
from course_utils.notebook.readout import _shell
from course_utils.notebook.seeding import seed_everything


@dataclass(frozen=True)
class Session:
    device: torch.device
    fast: bool
    seed: int
    grading: bool  # True while nbgrader runs the notebook (autograde or validate)


def grading_mode() -> str:
    """nbgrader sets NBGRADER_EXECUTION ('autograde' or 'validate') for the kernel it runs."""
    return os.environ.get("NBGRADER_EXECUTION", "")


FAST_CHOICES = ("auto", True, False)


def choose_fast(fast: bool | str, device: torch.device, grading: bool) -> tuple[bool, str]:
    """Whether to run fast, and why, in words for the setup cell's line.

    "auto" runs full mode only on a CUDA GPU: on a CPU (or Apple's MPS) full mode trains for
    many minutes, which a student should choose, not meet. Graded runs are always fast.
    """
    if fast not in FAST_CHOICES:
        raise ValueError(f"fast must be \"auto\", True or False, not {fast!r}")
    if grading:
        return True, "graded runs are always fast"
    if fast == "auto":
        on = device.type != "cuda"
        return on, (f"auto: {device.type}; set fast = False for full mode" if on else "auto: a CUDA GPU")
    return bool(fast), "as set"


def setup_notebook(device: str = "auto", fast: bool | str = "auto", seed: int = 0) -> Session:
    """Pick the device, seed everything and tune the kernel for reading or grading.

    `fast`: "auto" (fast on a CPU, full on a CUDA GPU), True or False. Under nbgrader the run is
    always `fast` (graded runs must be short), tracebacks are minimal, so feedback never shows
    the source lines around a hidden test, and figures are drawn but not rendered (no one sees
    them, and rendering costs seconds per submission).
    """
    grading = bool(grading_mode())
    _figure_defaults()
    tracing.install(_shell(), grading)
    if grading:
        _minimal_tracebacks()
        _figures_not_rendered()
    chosen = pick_device(device)
    fast, why = choose_fast(fast, chosen, grading)
    seed_everything(seed)
    print(f"fast mode: {'on' if fast else 'off'} ({why}) | seed: {seed}")
    return Session(device=chosen, fast=fast, seed=int(seed), grading=grading)


def _minimal_tracebacks() -> None:
    shell = _shell()
    if shell is not None:
        shell.run_line_magic("xmode", "Minimal")


def _figures_not_rendered() -> None:
    """Draw figures on a canvas that renders nothing, and close them when a cell ends.

    The plotting code still runs (a bug in it still shows), but no PNG is made: a graded
    run of notebook 07 spent a quarter of its cells' time rendering heatmaps nobody sees.
    """
    import matplotlib.pyplot as plt

    plt.switch_backend("agg")
    plt.show = lambda *args, **kwargs: plt.close("all")
    shell = _shell()
    if shell is not None:
        shell.events.register("post_run_cell", lambda *args: plt.close("all"))


def _figure_defaults() -> None:
    import matplotlib

    matplotlib.rcParams.update({"figure.figsize": (6.0, 4.0), "figure.dpi": 100,
                                "axes.titlesize": "medium", "image.cmap": "viridis"})
