"""Moves the head axis back but forgets to flatten: returns (B, L, h, d_k)."""

def merge_heads(x):
    return x.transpose(1, 2)
