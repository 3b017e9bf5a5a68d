"""einsum for both products, torch.where with -inf, and torch.where to zero the empty rows."""
def scaled_dot_product_attention(query, key, value, mask=None):
    scores = torch.einsum("...qd,...kd->...qk", query, key) / query.shape[-1] ** 0.5
    if mask is not None:
        scores = torch.where(mask, scores, float("-inf"))
    weights = scores.softmax(dim=-1)
    if mask is not None:
        weights = torch.where(mask.any(dim=-1, keepdim=True), weights, 0.0)
    output = torch.einsum("...qk,...kd->...qd", weights, value)
    return output, weights
