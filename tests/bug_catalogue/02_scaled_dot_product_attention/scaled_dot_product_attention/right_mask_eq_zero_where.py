"""The Annotated Transformer's masked_fill(mask == 0, ...) with -inf, empty rows zeroed with torch.where."""
def scaled_dot_product_attention(query, key, value, mask=None):
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(query.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = scores.softmax(dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, torch.zeros_like(weights))
    return torch.matmul(weights, value), weights
