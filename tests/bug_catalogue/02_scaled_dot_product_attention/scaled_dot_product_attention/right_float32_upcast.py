"""Computes in float32 (or float64) internally and casts the results back to the input dtype."""
def scaled_dot_product_attention(query, key, value, mask=None):
    dtype = query.dtype
    work = torch.float64 if dtype == torch.float64 else torch.float32
    q, k, v = query.to(work), key.to(work), value.to(work)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
        allowed = mask.any(dim=-1, keepdim=True)
        scores = scores.masked_fill(~allowed, 0.0)   # empty rows: finite scores, weights zeroed below
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~allowed, 0.0)
    return (weights @ v).to(dtype), weights.to(dtype)
