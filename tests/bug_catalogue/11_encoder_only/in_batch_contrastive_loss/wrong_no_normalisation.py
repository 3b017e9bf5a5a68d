"""Uses raw dot products: cosine similarity without normalising the vectors."""
def in_batch_contrastive_loss(a, b, temperature=0.05):
    """a, b (B, d), a[i] paired with b[i]: mean cross-entropy of a[i] picking b[i] among all b."""
    scores = a @ b.T / temperature
    targets = torch.arange(a.size(0), device=a.device)
    return F.cross_entropy(scores, targets)
