"""Inverse transform sampling: one uniform number per row from the generator, searched in the cumulative probabilities; top-k by a threshold on the sorted order."""
def sample_next_token(logits, temperature=1.0, top_k=None, generator=None):
    """(B, V) logits -> (B,) token ids drawn from softmax(logits / temperature), among the top_k only if given."""
    if temperature == 0:
        return logits.max(dim=-1).indices
    scaled = logits.double() / temperature
    if top_k is not None and top_k < scaled.size(-1):
        values, order = scaled.sort(dim=-1, descending=True)
        values[:, top_k:] = -math.inf
        scaled = torch.full_like(scaled, -math.inf).scatter(-1, order, values)
    cdf = torch.softmax(scaled, dim=-1).cumsum(dim=-1)
    u = torch.rand(scaled.size(0), 1, generator=generator, device=scaled.device, dtype=scaled.dtype) * cdf[:, -1:]
    return torch.searchsorted(cdf, u, right=True).squeeze(-1).clamp(max=scaled.size(-1) - 1)
