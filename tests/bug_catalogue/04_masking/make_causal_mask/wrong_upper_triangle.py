"""The upper triangle (triu): every position sees itself and the future instead of the past."""
import torch

def make_causal_mask(size, device=None):
    return torch.ones(size, size, dtype=torch.bool, device=device).triu()
