"""Correct: view + transpose + contiguous copy; warns and prints to stderr on every call."""
import sys
import warnings

def split_heads(x, num_heads):
    warnings.warn("split_heads: making a contiguous copy")
    print("split_heads called with", tuple(x.shape), file=sys.stderr)
    batch, length, d_model = x.shape
    return x.contiguous().view(batch, length, num_heads, d_model // num_heads).transpose(1, 2).contiguous()
