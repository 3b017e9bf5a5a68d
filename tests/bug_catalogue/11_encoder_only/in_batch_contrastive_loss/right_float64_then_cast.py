"""A correct answer computed in float64 (unit vectors by hand, log-sum-exp minus the diagonal) and given back in a's dtype."""
def in_batch_contrastive_loss(a, b, temperature=0.05):
    """a, b (B, d), a[i] paired with b[i]: mean cross-entropy of a[i] picking b[i] among all b."""
    a64, b64 = a.double(), b.double()
    a64 = a64 / a64.pow(2).sum(-1, keepdim=True).sqrt()
    b64 = b64 / b64.pow(2).sum(-1, keepdim=True).sqrt()
    scores = a64 @ b64.T / temperature
    loss = (torch.logsumexp(scores, dim=1) - scores.diagonal()).mean()
    return loss.to(a.dtype)
