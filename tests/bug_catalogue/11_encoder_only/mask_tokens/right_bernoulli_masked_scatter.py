"""A correct answer with torch.bernoulli and in-place writes into a clone (HF's collator written out)."""
def mask_tokens(tokens, mask_id, pad_id, vocab_size, p=0.15, generator=None):
    """BERT's corruption of a (B, L) batch of token ids: returns (inputs, labels), both (B, L) long."""
    probability = torch.full(tokens.shape, p, device=tokens.device)
    chosen = torch.bernoulli(probability, generator=generator).bool() & (tokens != pad_id)
    labels = tokens.clone()
    labels[~chosen] = -100
    inputs = tokens.clone()
    masked = torch.bernoulli(torch.full(tokens.shape, 0.8, device=tokens.device), generator=generator).bool() & chosen
    inputs[masked] = mask_id
    swapped = torch.bernoulli(torch.full(tokens.shape, 0.5, device=tokens.device), generator=generator).bool()
    swapped &= chosen & ~masked
    allowed = torch.tensor([i for i in range(vocab_size) if i != pad_id and i != mask_id], device=tokens.device)
    picks = torch.randint(0, len(allowed), (int(swapped.sum()),), generator=generator, device=tokens.device)
    inputs[swapped] = allowed[picks]
    return inputs, labels
