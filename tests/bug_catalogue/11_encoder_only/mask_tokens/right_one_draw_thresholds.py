"""A correct answer: one uniform draw per token decides chosen and action at once (p*0.8, p*0.9, p)."""
def mask_tokens(tokens, mask_id, pad_id, vocab_size, p=0.15, generator=None):
    """BERT's corruption of a (B, L) batch of token ids: returns (inputs, labels), both (B, L) long."""
    u = torch.rand(tokens.size(), generator=generator, device=tokens.device)
    real = tokens.ne(pad_id)
    chosen = real & (u < p)
    labels = tokens.masked_fill(~chosen, -100)
    # Offsets of the V - 2 allowed ids: a lookup table built once.
    table = [i for i in range(vocab_size) if i not in {pad_id, mask_id}]
    random_ids = torch.tensor(table, device=tokens.device)[
        torch.randint(len(table), tokens.size(), generator=generator, device=tokens.device)]
    inputs = tokens.masked_fill(real & (u < 0.8 * p), mask_id)
    swap = real & (u >= 0.8 * p) & (u < 0.9 * p)
    inputs = torch.where(swap, random_ids, inputs)
    return inputs, labels
