"""Scales the query in place (query /= sqrt(d_k)) to save a copy: the caller's query shrinks on every call."""
def scaled_dot_product_attention(query, key, value, mask=None):
    query /= math.sqrt(query.size(-1))
    scores = query @ key.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights @ value, weights
