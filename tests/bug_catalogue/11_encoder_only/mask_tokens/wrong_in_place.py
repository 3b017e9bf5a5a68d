"""Writes the masks into the caller's tokens instead of into a copy."""
def mask_tokens(tokens, mask_id, pad_id, vocab_size, p=0.15, generator=None):
    """BERT's corruption of a (B, L) batch of token ids: returns (inputs, labels), both (B, L) long."""
    chosen = (torch.rand(tokens.shape, generator=generator, device=tokens.device) < p) & (tokens != pad_id)
    labels = torch.where(chosen, tokens, torch.full_like(tokens, -100))
    action = torch.rand(tokens.shape, generator=generator, device=tokens.device)
    allowed = torch.tensor([i for i in range(vocab_size) if i not in (pad_id, mask_id)], device=tokens.device)
    random_ids = allowed[torch.randint(len(allowed), tokens.shape, generator=generator, device=tokens.device)]
    inputs = tokens
    inputs[chosen & (action < 0.8)] = mask_id
    swap = chosen & (action >= 0.8) & (action < 0.9)
    inputs[swap] = random_ids[swap]
    return inputs, labels
