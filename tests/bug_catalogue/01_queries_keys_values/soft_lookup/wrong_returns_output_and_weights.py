"""Returns (output, weights), like notebook 02's attention, instead of the output alone."""
def soft_lookup(query, keys, values):
    weights = softmax(dot_product_scores(query, keys), dim=-1)
    return weights @ values, weights
