"""Puts the tokens on the query axis, (B, 1, L, 1): masks padded queries instead of padded keys."""
def make_padding_mask(tokens, pad_id):
    return (tokens != pad_id)[:, None, :, None]
