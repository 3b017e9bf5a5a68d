"""A correct answer: bernoulli for the choice, one multinomial draw over (mask, random, keep) per token, random ids through a table of the allowed ids."""
def mask_tokens(tokens, mask_id, pad_id, vocab_size, p=0.15, generator=None):
    """BERT's corruption of a (B, L) batch of token ids: returns (inputs, labels), both (B, L) long."""
    real = tokens != pad_id
    chosen = torch.bernoulli(torch.full(tokens.shape, float(p), device=tokens.device), generator=generator).bool() & real
    weights = torch.tensor([0.8, 0.1, 0.1], device=tokens.device)
    action = torch.multinomial(weights, tokens.numel(), replacement=True, generator=generator).view(tokens.shape)
    allowed = torch.tensor([i for i in range(vocab_size) if i != pad_id and i != mask_id], device=tokens.device)
    picks = torch.randint(len(allowed), tokens.shape, generator=generator, device=tokens.device)
    inputs = tokens.clone()
    inputs[chosen & (action == 0)] = mask_id
    swap = chosen & (action == 1)
    inputs[swap] = allowed[picks][swap]
    labels = torch.full_like(tokens, -100)
    labels[chosen] = tokens[chosen]
    return inputs, labels
