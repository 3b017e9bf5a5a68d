"""Choosing the torch device a notebook runs on."""
import torch

CHOICES = ("auto", "cpu", "cuda", "mps")
_announced = set()


def _mps_available():
    backend = getattr(torch.backends, "mps", None)
    return bool(backend and backend.is_available())


def pick_device(preference="auto", announce=True):
    """Return a torch.device: `cuda` > `mps` > `cpu` for "auto", or the one asked for.

    Asking for a device this machine lacks is an error that says what to do, rather
    than a silent fallback that would make timings and results confusing.
    """
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
        print(f"Using device: {name}")
    return device
