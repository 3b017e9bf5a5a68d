"""Normalises a and b in place (/=): the caller's vectors change."""
def in_batch_contrastive_loss(a, b, temperature=0.05):
    """a, b (B, d), a[i] paired with b[i]: mean cross-entropy of a[i] picking b[i] among all b."""
    a /= a.norm(dim=-1, keepdim=True)
    b /= b.norm(dim=-1, keepdim=True)
    scores = a @ b.T / temperature
    return F.cross_entropy(scores, torch.arange(a.size(0), device=a.device))
