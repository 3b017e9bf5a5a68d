"""Zeroes the padding vectors in place (masked_fill_) before summing: the caller's hidden states change."""
def mean_pool(hidden, mask):
    """(B, L, d) token vectors and a (B, L) bool mask, True at real tokens -> (B, d) mean of the real ones."""
    hidden.masked_fill_(~mask.unsqueeze(-1), 0.0)
    counts = mask.sum(dim=1, keepdim=True).clamp(min=1).to(hidden.dtype)
    return hidden.sum(dim=1) / counts
