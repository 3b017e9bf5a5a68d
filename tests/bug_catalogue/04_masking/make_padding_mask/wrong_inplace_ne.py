"""Uses the in-place tokens.ne_(pad_id): overwrites the caller's tokens and returns a long tensor."""
def make_padding_mask(tokens, pad_id):
    return tokens.ne_(pad_id)[:, None, None, :]
