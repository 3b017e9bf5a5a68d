"""Splits the features as (d_k, h) instead of (h, d_k): each head gets every h-th feature (strided heads)."""

def split_heads(x, num_heads):
    batch, length, d_model = x.shape
    return x.reshape(batch, length, d_model // num_heads, num_heads).permute(0, 3, 1, 2)
