"""Folds the heads into the batch as PyTorch does internally: (B * h, L, d_k) instead of (B, h, L, d_k)."""

def split_heads(x, num_heads):
    batch, length, d_model = x.shape
    d_k = d_model // num_heads
    return x.reshape(batch, length, num_heads, d_k).transpose(1, 2).reshape(batch * num_heads, length, d_k)
