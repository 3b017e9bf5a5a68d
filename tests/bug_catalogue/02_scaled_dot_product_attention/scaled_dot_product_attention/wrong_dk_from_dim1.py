"""Reads d_k from query.size(1) (right for some 2-D layouts, wrong for batched inputs)."""
def scaled_dot_product_attention(query, key, value, mask=None):
    d_k = query.size(1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return torch.matmul(weights, value), weights
