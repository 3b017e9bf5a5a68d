"""Combines the masks with | (OR): pad keys in the past and real keys in the future become visible."""
def make_decoder_mask(tokens, pad_id):
    return make_padding_mask(tokens, pad_id) | make_causal_mask(tokens.size(1), device=tokens.device)
