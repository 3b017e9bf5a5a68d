"""Correct: unflatten the feature axis into (h, d_k), then permute the head axis to dim 1."""

def split_heads(x, num_heads):
    return x.unflatten(-1, (num_heads, -1)).permute(0, 2, 1, 3)
