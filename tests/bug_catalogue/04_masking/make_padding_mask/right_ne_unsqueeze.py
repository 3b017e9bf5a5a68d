"""tokens.ne(pad_id) with two unsqueeze calls instead of None indexing."""
def make_padding_mask(tokens, pad_id):
    return tokens.ne(pad_id).unsqueeze(1).unsqueeze(2)
