"""Reproducible randomness for notebooks and tests."""
from __future__ import annotations

import random

import numpy as np
import torch


def seed_everything(seed: int = 0) -> int:
    """Seed Python, NumPy and torch (all devices) so a rerun draws the same numbers."""
    seed = int(seed)
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    return seed
