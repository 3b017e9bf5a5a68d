"""Divides the scores by sqrt(d) (that belongs to notebook 02, not to the raw dot product)."""
import math

def dot_product_scores(query, keys):
    return query @ keys.transpose(-2, -1) / math.sqrt(query.shape[-1])
