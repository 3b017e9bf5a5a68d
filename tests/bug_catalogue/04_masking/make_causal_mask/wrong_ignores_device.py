"""Ignores the device argument: the mask is always created on the default device."""
import torch

def make_causal_mask(size, device=None):
    return torch.tril(torch.ones(size, size, dtype=torch.bool))
