"""Casts the mask and the vectors to float32, so a float64 input comes back float32."""
def mean_pool(hidden, mask):
    """(B, L, d) token vectors and a (B, L) bool mask, True at real tokens -> (B, d) mean of the real ones."""
    weights = mask.unsqueeze(-1).float()
    return (hidden.float() * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1)
