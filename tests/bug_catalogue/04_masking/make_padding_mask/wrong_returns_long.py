"""Converts the mask to 0/1 integers instead of keeping it torch.bool."""
def make_padding_mask(tokens, pad_id):
    return (tokens != pad_id).long()[:, None, None, :]
