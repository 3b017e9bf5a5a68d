"""Polarity inverted: True at the padding (nn.MultiheadAttention's key_padding_mask convention)."""
def make_padding_mask(tokens, pad_id):
    return (tokens == pad_id)[:, None, None, :]
