"""A correct answer that warns and prints to stderr on every call."""
def mask_tokens(tokens, mask_id, pad_id, vocab_size, p=0.15, generator=None):
    """BERT's corruption of a (B, L) batch of token ids: returns (inputs, labels), both (B, L) long."""
    import sys
    import warnings
    warnings.warn("mask_tokens: corrupting a batch", UserWarning)
    print(f"masking {tokens.numel()} tokens", file=sys.stderr)
    def uniform():
        return torch.rand(tokens.shape, generator=generator, device=tokens.device)
    chosen = (uniform() < p) & (tokens != pad_id)
    labels = torch.where(chosen, tokens, -100)
    action = uniform()
    random_ids = torch.randint(vocab_size - 2, tokens.shape, generator=generator, device=tokens.device)
    low, high = min(pad_id, mask_id), max(pad_id, mask_id)
    random_ids = random_ids + (random_ids >= low).long()
    random_ids = random_ids + (random_ids >= high).long()
    inputs = tokens.clone()
    inputs[chosen & (action < 0.8)] = mask_id
    swap = chosen & (action >= 0.8) & (action < 0.9)
    inputs[swap] = random_ids[swap]
    return inputs, labels
