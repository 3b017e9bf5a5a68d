"""A correct answer that sums and divides in float64, then gives the result back in hidden's dtype (other rounding than float32 arithmetic)."""
def mean_pool(hidden, mask):
    """(B, L, d) token vectors and a (B, L) bool mask, True at real tokens -> (B, d) mean of the real ones."""
    wide = hidden.double()
    weights = mask.double().unsqueeze(-1)
    mean = (wide * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)
    return mean.to(hidden.dtype)
