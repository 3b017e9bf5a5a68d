"""Averages over the batch dimension (dim 0) instead of the token dimension."""
def mean_pool(hidden, mask):
    """(B, L, d) token vectors and a (B, L) bool mask, True at real tokens -> (B, d) mean of the real ones."""
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    return ((hidden * weights).sum(dim=0) / weights.sum(dim=0).clamp(min=1))
