"""Follows the 80% with a 10% draw among the remaining chosen tokens (instead of half of them), so only 2% become random."""
def mask_tokens(tokens, mask_id, pad_id, vocab_size, p=0.15, generator=None):
    """BERT's corruption of a (B, L) batch of token ids: returns (inputs, labels), both (B, L) long."""
    chosen = (torch.rand(tokens.shape, generator=generator, device=tokens.device) < p) & (tokens != pad_id)
    labels = torch.where(chosen, tokens, torch.full_like(tokens, -100))
    inputs = tokens.clone()
    masked = chosen & (torch.rand(tokens.shape, generator=generator, device=tokens.device) < 0.8)
    inputs[masked] = mask_id
    swapped = chosen & ~masked & (torch.rand(tokens.shape, generator=generator, device=tokens.device) < 0.1)
    allowed = torch.tensor([i for i in range(vocab_size) if i not in (pad_id, mask_id)], device=tokens.device)
    random_ids = allowed[torch.randint(len(allowed), tokens.shape, generator=generator, device=tokens.device)]
    inputs[swapped] = random_ids[swapped]
    return inputs, labels
