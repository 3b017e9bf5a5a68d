"""Transposes the keys with permute(0, 2, 1), which assumes exactly one batch dim."""
def dot_product_scores(query, keys):
    return query @ keys.permute(0, 2, 1)
