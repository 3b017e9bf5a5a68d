"""Forgets to transpose the keys: query @ keys only runs when d happens to equal Lk."""
def dot_product_scores(query, keys):
    return query @ keys
