"""Inverts the mask in place with logical_not_(): the caller's mask is flipped after every call."""
def scaled_dot_product_attention(query, key, value, mask=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        masked_out = mask.logical_not_()
        scores = scores.masked_fill(masked_out, float("-inf"))
        empty = masked_out.all(dim=-1, keepdim=True)
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(empty, 0.0)
    return weights @ value, weights
