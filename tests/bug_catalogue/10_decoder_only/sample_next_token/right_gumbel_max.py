"""Gumbel-max trick with noise from the generator; top-k by sorting and a threshold on the sorted index."""
def sample_next_token(logits, temperature=1.0, top_k=None, generator=None):
    """(B, V) logits -> (B,) token ids drawn from softmax(logits / temperature), among the top_k only if given."""
    if temperature == 0:
        return torch.argmax(logits, dim=1)
    scaled = logits.double() / temperature
    if top_k is not None and top_k < scaled.shape[1]:
        order = scaled.argsort(dim=1, descending=True)
        ranks = torch.empty_like(order).scatter_(1, order, torch.arange(scaled.shape[1], device=scaled.device).expand_as(order))
        scaled = torch.where(ranks < top_k, scaled, torch.full_like(scaled, -math.inf))
    uniform = torch.rand(scaled.shape, generator=generator, device=scaled.device, dtype=scaled.dtype)
    gumbel = -torch.log(-torch.log(uniform.clamp_min(1e-300)))
    return (scaled + gumbel).argmax(dim=1)
