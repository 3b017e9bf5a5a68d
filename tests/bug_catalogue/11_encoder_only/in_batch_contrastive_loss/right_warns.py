"""A correct answer that warns on every call."""
def in_batch_contrastive_loss(a, b, temperature=0.05):
    """a, b (B, d), a[i] paired with b[i]: mean cross-entropy of a[i] picking b[i] among all b."""
    import warnings
    warnings.warn("contrastive loss: small batch", UserWarning)
    a = torch.nn.functional.normalize(a, p=2, dim=1)
    b = torch.nn.functional.normalize(b, p=2, dim=1)
    logits = torch.matmul(a, b.transpose(0, 1)) * (1.0 / temperature)
    labels = torch.arange(len(a), device=logits.device)
    return torch.nn.functional.cross_entropy(logits, labels)
