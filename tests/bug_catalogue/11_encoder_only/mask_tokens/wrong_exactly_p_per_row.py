"""Chooses exactly round(p x the row's real tokens) tokens of each row (as BERT's data pipeline did), not each token on its own with probability p."""
def mask_tokens(tokens, mask_id, pad_id, vocab_size, p=0.15, generator=None):
    """BERT's corruption of a (B, L) batch of token ids: returns (inputs, labels), both (B, L) long."""
    real = tokens != pad_id
    noise = torch.rand(tokens.shape, generator=generator, device=tokens.device).masked_fill(~real, 2.0)
    order = noise.argsort(dim=1).argsort(dim=1)              # each token's place in its row's random order
    quota = torch.round(real.sum(dim=1, keepdim=True) * p)
    chosen = (order < quota) & real
    labels = torch.where(chosen, tokens, torch.full_like(tokens, -100))
    action = torch.rand(tokens.shape, generator=generator, device=tokens.device)
    random_ids = torch.randint(vocab_size - 2, tokens.shape, generator=generator, device=tokens.device)
    for special in sorted((pad_id, mask_id)):
        random_ids += (random_ids >= special).long()
    inputs = torch.where(chosen & (action < 0.8), torch.full_like(tokens, mask_id), tokens)
    inputs = torch.where(chosen & (action >= 0.8) & (action < 0.9), random_ids, inputs)
    return inputs, labels
