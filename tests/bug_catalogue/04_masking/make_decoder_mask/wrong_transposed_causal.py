"""Uses the transposed (upper-triangular) causal mask: every query sees the future, not the past."""
def make_decoder_mask(tokens, pad_id):
    causal = make_causal_mask(tokens.size(1), device=tokens.device)
    return make_padding_mask(tokens, pad_id) & causal.T
