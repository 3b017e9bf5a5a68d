"""Returns the attention weights instead of the blended values."""
def soft_lookup(query, keys, values):
    return softmax(dot_product_scores(query, keys), dim=-1)
