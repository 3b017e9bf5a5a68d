"""A correct answer: broadcast cosine_similarity and logsumexp written out."""
def in_batch_contrastive_loss(a, b, temperature=0.05):
    """a, b (B, d), a[i] paired with b[i]: mean cross-entropy of a[i] picking b[i] among all b."""
    scores = F.cosine_similarity(a.unsqueeze(1), b.unsqueeze(0), dim=-1) / temperature
    positive = scores.diagonal()
    return (torch.logsumexp(scores, dim=1) - positive).mean()
