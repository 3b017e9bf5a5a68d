"""Removes the excluded items by giving them a score of 0, as if scores were never negative: excluded items still rank above a negative target."""
def ranking_metrics(scores, targets, k=10, exclude=None):
    """Hit rate and NDCG at k of the targets in the full ranking of `scores` (B, n_items), excluded items left out."""
    hit_allowed = torch.ones_like(targets, dtype=torch.bool)
    if exclude is not None:
        hit_allowed = ~exclude.gather(1, targets[:, None])[:, 0]
        scores = scores.masked_fill(exclude, 0)
    target_score = scores.gather(1, targets[:, None])
    ahead = scores >= target_score
    ahead[torch.arange(len(targets), device=scores.device), targets] = False
    rank = ahead.sum(dim=1) + 1
    hit = (rank <= k) & hit_allowed
    ndcg = torch.where(hit, 1.0 / torch.log2(rank.double() + 1), 0.0)
    return {"hit_rate": hit.double().mean().item(), "ndcg": ndcg.mean().item()}
