"""Takes the softmax over the query axis (dim=-2) instead of over the keys."""
def soft_lookup(query, keys, values):
    weights = softmax(dot_product_scores(query, keys), dim=-2)
    return weights @ values
