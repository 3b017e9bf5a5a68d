"""The future as triu(diagonal=1), then inverted with ~."""
import torch

def make_causal_mask(size, device=None):
    future = torch.triu(torch.ones(size, size, dtype=torch.bool, device=device), diagonal=1)
    return ~future
