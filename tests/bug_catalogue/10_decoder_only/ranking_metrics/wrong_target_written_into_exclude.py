"""Leaves the target out of the count by writing it into the caller's exclude mask (in place): the caller's mask changes."""
def ranking_metrics(scores, targets, k=10, exclude=None):
    """Hit rate and NDCG at k of the targets in the full ranking of `scores` (B, n_items), excluded items left out."""
    rows = torch.arange(len(targets), device=scores.device)
    if exclude is None:
        exclude = torch.zeros_like(scores, dtype=torch.bool)
    hit_allowed = ~exclude[rows, targets]
    exclude[rows, targets] = True
    target_score = scores[rows, targets][:, None]
    rank = ((scores >= target_score) & ~exclude).sum(dim=1) + 1
    hit = (rank <= k) & hit_allowed
    ndcg = torch.where(hit, 1.0 / torch.log2(rank.double() + 1), 0.0)
    return {"hit_rate": hit.double().mean().item(), "ndcg": ndcg.mean().item()}
