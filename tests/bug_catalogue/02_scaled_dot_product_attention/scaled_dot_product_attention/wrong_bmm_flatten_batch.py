"""Flattens the batch dims and uses torch.bmm (as d2l.ai does): right when query and key share a batch shape, not when they broadcast."""
def scaled_dot_product_attention(query, key, value, mask=None):
    d_k = query.size(-1)
    q = query.reshape(-1, query.size(-2), d_k)
    k = key.reshape(-1, key.size(-2), d_k)
    v = value.reshape(-1, value.size(-2), value.size(-1))
    scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(d_k)
    scores = scores.reshape(*query.shape[:-1], key.size(-2))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    flat = weights.reshape(-1, weights.size(-2), weights.size(-1))
    output = torch.bmm(flat, v).reshape(*weights.shape[:-1], value.size(-1))
    return output, weights
