"""Draws from the global random generator and ignores the generator argument."""
def mask_tokens(tokens, mask_id, pad_id, vocab_size, p=0.15, generator=None):
    """BERT's corruption of a (B, L) batch of token ids: returns (inputs, labels), both (B, L) long."""
    chosen = (torch.rand(tokens.shape, device=tokens.device) < p) & (tokens != pad_id)
    labels = torch.where(chosen, tokens, torch.full_like(tokens, -100))
    action = torch.rand(tokens.shape, device=tokens.device)
    allowed = torch.tensor([i for i in range(vocab_size) if i not in (pad_id, mask_id)], device=tokens.device)
    random_ids = allowed[torch.randint(len(allowed), tokens.shape, device=tokens.device)]
    inputs = torch.where(chosen & (action < 0.8), torch.full_like(tokens, mask_id), tokens)
    inputs = torch.where(chosen & (action >= 0.8) & (action < 0.9), random_ids, inputs)
    return inputs, labels
