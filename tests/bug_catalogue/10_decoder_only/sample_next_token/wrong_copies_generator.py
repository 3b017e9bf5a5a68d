"""Draws from a copy of the generator (so as not to change an input): the caller's generator never moves, and every call draws the same numbers."""
def sample_next_token(logits, temperature=1.0, top_k=None, generator=None):
    """(B, V) logits -> (B,) token ids drawn from softmax(logits / temperature), among the top_k only if given."""
    if temperature == 0:
        return logits.argmax(dim=-1)
    if generator is not None:
        own = torch.Generator(device=generator.device)
        own.set_state(generator.get_state())
        generator = own
    logits = logits.float() / temperature
    if top_k is not None and top_k < logits.size(-1):
        keep = torch.zeros_like(logits, dtype=torch.bool).scatter(-1, logits.topk(top_k, dim=-1).indices, True)
        logits = logits.masked_fill(~keep, float("-inf"))
    probs = torch.softmax(logits, dim=-1)
    return torch.multinomial(probs, 1, generator=generator).squeeze(-1)
