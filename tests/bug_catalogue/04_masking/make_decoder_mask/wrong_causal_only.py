"""Forgets the padding: only the causal mask, expanded to (B, 1, L, L)."""
def make_decoder_mask(tokens, pad_id):
    B, L = tokens.shape
    return make_causal_mask(L, device=tokens.device).expand(B, 1, L, L)
