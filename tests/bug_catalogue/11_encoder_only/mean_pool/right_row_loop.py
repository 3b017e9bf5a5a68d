"""A correct answer: one row at a time with boolean indexing, zeros for an empty row."""
def mean_pool(hidden, mask):
    """(B, L, d) token vectors and a (B, L) bool mask, True at real tokens -> (B, d) mean of the real ones."""
    rows = []
    for vectors, real in zip(hidden, mask):
        if real.any():
            rows.append(vectors[real].mean(dim=0))
        else:
            rows.append(torch.zeros_like(vectors[0]))
    return torch.stack(rows)
