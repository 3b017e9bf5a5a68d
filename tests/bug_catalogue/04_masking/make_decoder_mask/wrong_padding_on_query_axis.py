"""Puts the padding on the query axis (B, 1, L, 1): pad rows are masked, pad keys stay visible."""
def make_decoder_mask(tokens, pad_id):
    rows = (tokens != pad_id)[:, None, :, None]
    return rows & make_causal_mask(tokens.size(1), device=tokens.device)
