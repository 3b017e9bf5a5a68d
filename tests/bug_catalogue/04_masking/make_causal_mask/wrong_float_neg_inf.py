"""The additive float mask of nn.Transformer.generate_square_subsequent_mask (0 and -inf), not a bool mask."""
import torch

def make_causal_mask(size, device=None):
    return torch.triu(torch.full((size, size), float("-inf"), device=device), diagonal=1)
