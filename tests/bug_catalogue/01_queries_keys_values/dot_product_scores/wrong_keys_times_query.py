"""Multiplies in the wrong order, keys @ query^T: the scores come out transposed, (Lk, Lq)."""
def dot_product_scores(query, keys):
    return keys @ query.transpose(-2, -1)
