"""Uses key.T, which reverses every dimension: right for 2-D inputs, broken for batches."""
def scaled_dot_product_attention(query, key, value, mask=None):
    scores = query @ key.T / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights @ value, weights
