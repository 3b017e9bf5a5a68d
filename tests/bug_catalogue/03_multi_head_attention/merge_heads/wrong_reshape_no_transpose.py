"""Reshapes (B, h, L, d_k) straight to (B, L, h * d_k) without transposing back: tokens get mixed."""

def merge_heads(x):
    batch, num_heads, length, d_k = x.shape
    return x.reshape(batch, length, num_heads * d_k)
