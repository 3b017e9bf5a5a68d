"""Transposes the wrong axes (2 and 3): returns (B, L, d_k, h) instead of (B, h, L, d_k)."""

def split_heads(x, num_heads):
    batch, length, d_model = x.shape
    return x.view(batch, length, num_heads, d_model // num_heads).transpose(2, 3)
