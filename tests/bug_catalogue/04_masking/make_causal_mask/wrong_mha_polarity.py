"""nn.MultiheadAttention's polarity: True above the diagonal (masked), the inverse of the course's mask."""
import torch

def make_causal_mask(size, device=None):
    return torch.ones(size, size, dtype=torch.bool, device=device).triu(diagonal=1)
