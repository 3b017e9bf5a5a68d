"""Chunks along dim 1 (the sequence) instead of the feature axis: heads get token ranges, not feature slices."""

def split_heads(x, num_heads):
    return torch.stack(x.chunk(num_heads, dim=1), dim=1)
