"""Plain Python per row: sorts the allowed scores, pessimistic ties, math.log2."""
def ranking_metrics(scores, targets, k=10, exclude=None):
    """Hit rate and NDCG at k of the targets in the full ranking of `scores` (B, n_items), excluded items left out."""
    hits, gains = 0.0, 0.0
    rows = scores.tolist()
    banned = exclude.tolist() if exclude is not None else [[False] * len(rows[0]) for _ in rows]
    for row, target, ban in zip(rows, targets.tolist(), banned):
        if ban[target]:
            continue
        others = sorted((s for j, s in enumerate(row) if j != target and not ban[j]), reverse=True)
        r = 1 + sum(1 for s in others if s >= row[target])
        if r <= k:
            hits += 1
            gains += 1 / math.log2(r + 1)
    return {"hit_rate": hits / len(rows), "ndcg": gains / len(rows)}
