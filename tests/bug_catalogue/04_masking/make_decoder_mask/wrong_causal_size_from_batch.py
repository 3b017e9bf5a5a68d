"""Sizes the causal mask with tokens.size(0), the batch size, instead of the sequence length."""
def make_decoder_mask(tokens, pad_id):
    causal = make_causal_mask(tokens.size(0), device=tokens.device)
    return make_padding_mask(tokens, pad_id) & causal
