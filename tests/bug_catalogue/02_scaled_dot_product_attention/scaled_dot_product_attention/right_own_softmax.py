"""Own stable softmax: exp of the scores minus the max over the allowed keys, masked exps set to 0, sum clamped."""
def scaled_dot_product_attention(query, key, value, mask=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])
    if mask is None:
        exps = torch.exp(scores - scores.amax(dim=-1, keepdim=True))
    else:
        row_max = scores.masked_fill(~mask, torch.finfo(scores.dtype).min).amax(dim=-1, keepdim=True)
        shifted = (scores - row_max.detach()).masked_fill(~mask, float("-inf"))
        exps = torch.exp(shifted)            # exactly 0 at masked keys; a row with no allowed key is all 0
    total = exps.sum(dim=-1, keepdim=True)
    weights = exps / total.clamp_min(torch.finfo(total.dtype).tiny)
    return weights @ value, weights
