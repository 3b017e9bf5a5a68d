"""Draws the random replacement among the ids other than pad, mask AND the original token: a "random" token then always changes the input."""
def mask_tokens(tokens, mask_id, pad_id, vocab_size, p=0.15, generator=None):
    """BERT's corruption of a (B, L) batch of token ids: returns (inputs, labels), both (B, L) long."""
    chosen = (torch.rand(tokens.shape, generator=generator, device=tokens.device) < p) & (tokens != pad_id)
    labels = torch.where(chosen, tokens, torch.full_like(tokens, -100))
    action = torch.rand(tokens.shape, generator=generator, device=tokens.device)
    # An id in 0 .. V - 4, then shifted past pad, mask and the original, in increasing order.
    random_ids = torch.randint(vocab_size - 3, tokens.shape, generator=generator, device=tokens.device)
    skipped = torch.stack([torch.full_like(tokens, pad_id), torch.full_like(tokens, mask_id), tokens]).sort(0).values
    for special in skipped:
        random_ids = random_ids + (random_ids >= special).long()
    inputs = torch.where(chosen & (action < 0.8), torch.full_like(tokens, mask_id), tokens)
    inputs = torch.where(chosen & (action >= 0.8) & (action < 0.9), random_ids, inputs)
    return inputs, labels
