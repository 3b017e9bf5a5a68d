"""Makes a new torch.Generator() when none is given: its fixed default seed corrupts every batch alike, whatever torch.manual_seed says."""
def mask_tokens(tokens, mask_id, pad_id, vocab_size, p=0.15, generator=None):
    """BERT's corruption of a (B, L) batch of token ids: returns (inputs, labels), both (B, L) long."""
    if generator is None:
        generator = torch.Generator(device=tokens.device)
    chosen = (torch.rand(tokens.shape, generator=generator, device=tokens.device) < p) & (tokens != pad_id)
    labels = torch.where(chosen, tokens, torch.full_like(tokens, -100))
    action = torch.rand(tokens.shape, generator=generator, device=tokens.device)
    random_ids = torch.randint(vocab_size - 2, tokens.shape, generator=generator, device=tokens.device)
    for special in sorted((pad_id, mask_id)):
        random_ids += (random_ids >= special).long()
    inputs = torch.where(chosen & (action < 0.8), torch.full_like(tokens, mask_id), tokens)
    inputs = torch.where(chosen & (action >= 0.8) & (action < 0.9), random_ids, inputs)
    return inputs, labels
