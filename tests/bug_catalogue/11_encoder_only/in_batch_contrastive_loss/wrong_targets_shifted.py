"""Shifts the targets by one (row i's target is column i + 1), an off-by-one from skipping the positive."""
def in_batch_contrastive_loss(a, b, temperature=0.05):
    """a, b (B, d), a[i] paired with b[i]: mean cross-entropy of a[i] picking b[i] among all b."""
    scores = F.normalize(a, dim=-1) @ F.normalize(b, dim=-1).T / temperature
    targets = (torch.arange(a.size(0), device=a.device) + 1) % a.size(0)
    return F.cross_entropy(scores, targets)
