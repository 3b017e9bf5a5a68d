"""Scales the query before the product, (query * d_k ** -0.5) @ key^T: the same weights, rounded differently."""
def scaled_dot_product_attention(query, key, value, mask=None):
    scores = (query * query.shape[-1] ** -0.5) @ key.mT
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
        weights = torch.softmax(scores, dim=-1).nan_to_num(0.0)
    else:
        weights = torch.softmax(scores, dim=-1)
    return weights @ value, weights
