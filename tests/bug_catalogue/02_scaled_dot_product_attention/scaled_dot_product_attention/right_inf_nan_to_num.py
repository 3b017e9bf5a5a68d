"""-inf fill with masked_fill, then nan_to_num to turn the NaN of empty rows into zeros."""
def scaled_dot_product_attention(query, key, value, mask=None):
    scores = torch.matmul(query, key.mT) / math.sqrt(key.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return torch.matmul(weights, value), weights
