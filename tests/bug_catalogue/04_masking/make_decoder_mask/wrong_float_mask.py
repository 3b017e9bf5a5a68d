"""Multiplies float versions of the masks: right pattern, but a float tensor instead of torch.bool."""
def make_decoder_mask(tokens, pad_id):
    L = tokens.size(1)
    return make_padding_mask(tokens, pad_id).float() * make_causal_mask(L, device=tokens.device).float()
