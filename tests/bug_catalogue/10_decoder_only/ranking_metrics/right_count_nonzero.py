"""count_nonzero of the competitors (other, allowed, scored at least as high), NDCG through math.log2 per row, floats built with float()."""
def ranking_metrics(scores, targets, k=10, exclude=None):
    """Hit rate and NDCG at k of the targets in the full ranking of `scores` (B, n_items), excluded items left out."""
    B, n = scores.shape
    allowed = torch.ones(B, n, dtype=torch.bool, device=scores.device) if exclude is None else ~exclude
    others = torch.arange(n, device=scores.device)[None, :] != targets[:, None]
    target_score = scores[torch.arange(B, device=scores.device), targets]
    competitors = (scores >= target_score[:, None]) & others & allowed
    ranks = (torch.count_nonzero(competitors, dim=1) + 1).tolist()
    playable = allowed[torch.arange(B, device=scores.device), targets].tolist()
    hits = [ok and r <= k for r, ok in zip(ranks, playable)]
    gains = [1 / math.log2(r + 1) if hit else 0.0 for r, hit in zip(ranks, hits)]
    return {"hit_rate": float(sum(hits)) / B, "ndcg": float(sum(gains)) / B}
