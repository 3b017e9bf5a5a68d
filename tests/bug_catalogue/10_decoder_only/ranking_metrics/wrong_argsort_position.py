"""Takes the rank as the target's place in argsort(descending=True): ties are broken by item index instead of counting against the target."""
def ranking_metrics(scores, targets, k=10, exclude=None):
    """Hit rate and NDCG at k of the targets in the full ranking of `scores` (B, n_items), excluded items left out."""
    hit_allowed = torch.ones_like(targets, dtype=torch.bool)
    if exclude is not None:
        hit_allowed = ~exclude.gather(1, targets[:, None])[:, 0]
        scores = scores.double().masked_fill(exclude, float("-inf"))
    order = scores.argsort(dim=1, descending=True)
    rank = (order == targets[:, None]).long().argmax(dim=1) + 1
    hit = (rank <= k) & hit_allowed
    ndcg = torch.where(hit, 1.0 / torch.log2(rank.double() + 1), 0.0)
    return {"hit_rate": hit.double().mean().item(), "ndcg": ndcg.mean().item()}
