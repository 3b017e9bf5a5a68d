"""Calls topk(top_k) without a guard: a top_k larger than the vocabulary raises instead of keeping every token."""
def sample_next_token(logits, temperature=1.0, top_k=None, generator=None):
    """(B, V) logits -> (B,) token ids drawn from softmax(logits / temperature), among the top_k only if given."""
    if temperature == 0:
        return logits.argmax(dim=-1)
    logits = logits.float() / temperature
    if top_k is not None:
        kth = logits.topk(top_k, dim=-1)
        keep = torch.zeros_like(logits, dtype=torch.bool).scatter(-1, kth.indices, True)
        logits = logits.masked_fill(~keep, float("-inf"))
    probs = torch.softmax(logits, dim=-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
