"""Multiplies query and keys elementwise and sums over d: pairs query i with key i only."""
def dot_product_scores(query, keys):
    return (query * keys).sum(dim=-1)
