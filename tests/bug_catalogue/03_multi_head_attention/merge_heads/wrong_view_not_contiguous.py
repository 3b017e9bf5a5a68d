"""Calls view right after transpose: fails on non-contiguous memory ("use .reshape(...) instead")."""

def merge_heads(x):
    batch, num_heads, length, d_k = x.shape
    return x.transpose(1, 2).view(batch, length, num_heads * d_k)
