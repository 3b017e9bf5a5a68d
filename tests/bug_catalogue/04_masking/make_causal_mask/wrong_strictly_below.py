"""Off by one: tril(diagonal=-1) forbids each position to attend to itself."""
import torch

def make_causal_mask(size, device=None):
    return torch.ones(size, size, dtype=torch.bool, device=device).tril(diagonal=-1)
