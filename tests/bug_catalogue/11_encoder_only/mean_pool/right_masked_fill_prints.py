"""A correct answer with masked_fill that prints to stderr."""
def mean_pool(hidden, mask):
    """(B, L, d) token vectors and a (B, L) bool mask, True at real tokens -> (B, d) mean of the real ones."""
    import sys
    print("pooling", tuple(hidden.shape), file=sys.stderr)
    summed = hidden.masked_fill(~mask[..., None], 0).sum(1)
    return summed / mask.sum(1, keepdim=True).clamp(min=1).to(hidden.dtype)
