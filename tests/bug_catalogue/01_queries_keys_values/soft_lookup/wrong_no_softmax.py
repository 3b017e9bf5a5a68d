"""Forgets the softmax: multiplies the raw scores by the values."""
def soft_lookup(query, keys, values):
    return dot_product_scores(query, keys) @ values
