"""Forgets to move the head axis: returns (B, L, h, d_k)."""

def split_heads(x, num_heads):
    batch, length, d_model = x.shape
    return x.view(batch, length, num_heads, d_model // num_heads)
