"""einsum over the shared feature dim, with ... for (broadcast) batch dims."""
def dot_product_scores(query, keys):
    return torch.einsum("...qd,...kd->...qk", query, keys)
