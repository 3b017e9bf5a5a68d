"""A correct answer that calls warnings.warn and prints a debug line to stderr on every call."""
import sys
import warnings

def scaled_dot_product_attention(query, key, value, mask=None):
    warnings.warn("scaled_dot_product_attention: computing attention by hand", UserWarning)
    print("attention shapes", tuple(query.shape), tuple(key.shape), tuple(value.shape), file=sys.stderr)
    d_k = query.size(-1)
    scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    return weights @ value, weights
