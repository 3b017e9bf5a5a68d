"""Flattens as (d_k, h) instead of (h, d_k): the heads' features end up interleaved."""

def merge_heads(x):
    batch, num_heads, length, d_k = x.shape
    return x.permute(0, 2, 3, 1).reshape(batch, length, num_heads * d_k)
