"""Takes the maximum over the real tokens instead of their mean."""
def mean_pool(hidden, mask):
    """(B, L, d) token vectors and a (B, L) bool mask, True at real tokens -> (B, d) mean of the real ones."""
    filled = hidden.masked_fill(~mask.unsqueeze(-1), float("-inf"))
    return filled.max(dim=1).values.nan_to_num(0.0, neginf=0.0)
