"""Repairs empty rows with torch.zeros(shape), which is float32: half-precision weights become float32 and the matmul fails."""
def scaled_dot_product_attention(query, key, value, mask=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
        weights = torch.where(torch.isnan(weights), torch.zeros(weights.shape), weights)
    return weights @ value, weights
