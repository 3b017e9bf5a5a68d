"""Excluded scores set to -inf on a copy; the target counted as one of the >= and subtracted; change of log base."""
def ranking_metrics(scores, targets, k=10, exclude=None):
    """Hit rate and NDCG at k of the targets in the full ranking of `scores` (B, n_items), excluded items left out."""
    masked = scores.double() if exclude is None else scores.double().masked_fill(exclude, float("-inf"))
    t = masked[torch.arange(scores.size(0), device=scores.device), targets]
    valid = t > float("-inf")
    r = (masked >= t[:, None]).sum(-1)                         # includes the target itself
    hit = valid & (r <= k)
    gain = torch.zeros_like(t)
    gain[hit] = math.log(2) / torch.log(r[hit].double() + 1)
    return dict(hit_rate=float(hit.sum()) / len(targets), ndcg=float(gain.sum()) / len(targets))
