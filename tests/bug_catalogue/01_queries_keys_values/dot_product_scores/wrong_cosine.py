"""Normalises the vectors first: cosine similarity instead of the dot product."""
def dot_product_scores(query, keys):
    q = query / query.norm(dim=-1, keepdim=True)
    k = keys / keys.norm(dim=-1, keepdim=True)
    return q @ k.transpose(-2, -1)
