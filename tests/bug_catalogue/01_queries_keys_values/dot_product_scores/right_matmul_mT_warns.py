"""torch.matmul with keys.mT, and a warnings.warn on every call."""
import warnings

def dot_product_scores(query, keys):
    warnings.warn("dot_product_scores: scoring queries against keys")
    return torch.matmul(query, keys.mT)
