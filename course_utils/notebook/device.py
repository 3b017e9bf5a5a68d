"""Choosing the torch device a notebook runs on."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

CHOICES = ("auto", "cpu", "cuda", "mps")
ANNOUNCEMENT = "Using device:"  # the line the setup cell prints; the grader's reports read it
_announced: set[str] = set()


def _mps_available() -> bool:
    import torch

    backend = getattr(torch.backends, "mps", None)
    return bool(backend and backend.is_available())


def pick_device(preference: str = "auto", announce: bool = True) -> torch.device:
    """Return a torch.device: `cuda` > `mps` > `cpu` for "auto", or the one asked for.

    Asking for a device this machine lacks is an error that says what to do, rather
    than a silent fallback that would make timings and results confusing.
    """
    import torch  # here, not at the top: the CLI reads CHOICES without loading torch

    preference = str(preference).lower()
    if preference not in CHOICES:
        raise ValueError(f"device must be one of {', '.join(CHOICES)}; got {preference!r}.")
    if preference == "auto":
        if torch.cuda.is_available():
            preference = "cuda"
        elif _mps_available():
            preference = "mps"
        else:
            preference = "cpu"
    elif preference == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("device='cuda' was asked for but torch sees no CUDA GPU here. "
                           "Set device = 'auto' (or 'cpu') in the parameters cell.")
    elif preference == "mps" and not _mps_available():
        raise RuntimeError("device='mps' was asked for but this machine has no Apple GPU. "
                           "Set device = 'auto' (or 'cpu') in the parameters cell.")
    device = torch.device(preference)
    if announce and preference not in _announced:
        _announced.add(preference)
        name = torch.cuda.get_device_name(device) if device.type == "cuda" else preference
        print(f"{ANNOUNCEMENT} {name}")
    return device
