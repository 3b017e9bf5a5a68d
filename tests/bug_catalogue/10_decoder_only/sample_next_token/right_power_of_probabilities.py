"""Temperature as a power of the probabilities, renormalised; top-k values scattered into a -inf tensor."""
def sample_next_token(logits, temperature=1.0, top_k=None, generator=None):
    """(B, V) logits -> (B,) token ids drawn from softmax(logits / temperature), among the top_k only if given."""
    if temperature == 0:
        return logits.max(dim=-1).indices
    x = logits.float()
    if top_k is not None:
        k = min(top_k, x.size(-1))
        values, indices = x.topk(k, dim=-1)
        x = torch.full_like(x, float("-inf")).scatter(-1, indices, values)
    p = torch.softmax(x, dim=-1) ** (1.0 / temperature)
    p = p / p.sum(dim=-1, keepdim=True)
    return torch.multinomial(p, num_samples=1, generator=generator)[:, 0]
