"""Draws the 80/10/10 decision once for the whole batch instead of once per chosen token."""
def mask_tokens(tokens, mask_id, pad_id, vocab_size, p=0.15, generator=None):
    """BERT's corruption of a (B, L) batch of token ids: returns (inputs, labels), both (B, L) long."""
    chosen = (torch.rand(tokens.shape, generator=generator, device=tokens.device) < p) & (tokens != pad_id)
    labels = torch.where(chosen, tokens, torch.full_like(tokens, -100))
    action = torch.rand(1, generator=generator, device=tokens.device).item()
    allowed = torch.tensor([i for i in range(vocab_size) if i not in (pad_id, mask_id)], device=tokens.device)
    random_ids = allowed[torch.randint(len(allowed), tokens.shape, generator=generator, device=tokens.device)]
    inputs = tokens.clone()
    if action < 0.8:
        inputs[chosen] = mask_id
    elif action < 0.9:
        inputs[chosen] = random_ids[chosen]
    return inputs, labels
