"""Fills with torch.finfo(dtype).min (finite in every dtype), then multiplies empty rows by 0."""
def scaled_dot_product_attention(query, key, value, mask=None):
    scale = 1.0 / math.sqrt(query.size(-1))
    scores = (query * scale) @ key.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask.any(dim=-1, keepdim=True)
    return weights @ value, weights
