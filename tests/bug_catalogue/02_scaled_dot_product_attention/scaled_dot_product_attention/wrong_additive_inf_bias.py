"""Adds a -inf bias to the scores and cleans NaN with nan_to_num: the forward is right, the gradients are NaN."""
def scaled_dot_product_attention(query, key, value, mask=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.size(-1))
    if mask is not None:
        bias = torch.zeros(mask.shape, dtype=scores.dtype, device=scores.device)
        scores = scores + bias.masked_fill(~mask, float("-inf"))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return weights @ value, weights
