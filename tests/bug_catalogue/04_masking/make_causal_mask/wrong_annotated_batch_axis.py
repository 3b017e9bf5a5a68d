"""Copies the Annotated Transformer's subsequent_mask: a (1, size, size) mask with a leading batch axis."""
import torch

def make_causal_mask(size, device=None):
    future = torch.triu(torch.ones(1, size, size, device=device), diagonal=1)
    return future == 0
