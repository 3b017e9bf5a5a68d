"""A correct answer with einsum and a float count."""
def mean_pool(hidden, mask):
    """(B, L, d) token vectors and a (B, L) bool mask, True at real tokens -> (B, d) mean of the real ones."""
    weights = mask.to(hidden.dtype)
    total = torch.einsum("bld,bl->bd", hidden, weights)
    count = weights.sum(-1, keepdim=True)
    return total / torch.clamp(count, min=1)
