"""Reshapes straight to (B, h, L, d_k) without a transpose: right shape, but heads mix tokens."""

def split_heads(x, num_heads):
    batch, length, d_model = x.shape
    return x.reshape(batch, num_heads, length, d_model // num_heads)
