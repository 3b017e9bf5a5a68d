"""Compares row and column indices: query i may attend to key j when i >= j."""
import torch

def make_causal_mask(size, device=None):
    idx = torch.arange(size, device=device)
    return idx[:, None] >= idx[None, :]
