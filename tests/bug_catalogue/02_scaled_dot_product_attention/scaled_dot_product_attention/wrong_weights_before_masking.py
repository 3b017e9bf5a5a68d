"""Computes the output with masked weights but returns the weights of the unmasked softmax."""
def scaled_dot_product_attention(query, key, value, mask=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    weights = torch.softmax(scores, dim=-1)
    if mask is None:
        return weights @ value, weights
    masked = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
    masked = masked.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return masked @ value, weights
