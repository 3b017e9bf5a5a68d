"""Broadcasts every query against every key and sums the products over d."""
def dot_product_scores(query, keys):
    return (query.unsqueeze(-2) * keys.unsqueeze(-3)).sum(dim=-1)
