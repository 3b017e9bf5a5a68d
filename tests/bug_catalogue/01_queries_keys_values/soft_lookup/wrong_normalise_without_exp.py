"""Normalises the scores by their sum without exponentiating."""
def soft_lookup(query, keys, values):
    scores = dot_product_scores(query, keys)
    return (scores / scores.sum(dim=-1, keepdim=True)) @ values
