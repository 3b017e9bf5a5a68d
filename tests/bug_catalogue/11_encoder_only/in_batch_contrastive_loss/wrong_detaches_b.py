"""Treats the b's as fixed targets and detaches them: no gradient reaches b, so half the pair never learns."""
def in_batch_contrastive_loss(a, b, temperature=0.05):
    """a, b (B, d), a[i] paired with b[i]: mean cross-entropy of a[i] picking b[i] among all b."""
    scores = F.normalize(a, dim=-1) @ F.normalize(b.detach(), dim=-1).T / temperature
    targets = torch.arange(a.size(0), device=a.device)
    return F.cross_entropy(scores, targets)
