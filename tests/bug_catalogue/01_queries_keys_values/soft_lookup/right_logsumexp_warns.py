"""Exp-log weights written inline, and a warnings.warn on every call."""
import warnings

def soft_lookup(query, keys, values):
    warnings.warn("soft_lookup is unscaled", RuntimeWarning)
    scores = query @ keys.mT
    weights = (scores - scores.logsumexp(dim=-1, keepdim=True)).exp()
    return weights @ values
