"""Takes the softmax over the queries (dim=-2) instead of the keys: columns sum to 1, not rows."""
def scaled_dot_product_attention(query, key, value, mask=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-2).nan_to_num(0.0)
    return weights @ value, weights
