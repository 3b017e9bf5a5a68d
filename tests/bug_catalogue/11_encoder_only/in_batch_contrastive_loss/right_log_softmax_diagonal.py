"""A correct answer: einsum of unit vectors, log_softmax over the b's, minus the mean of the diagonal."""
def in_batch_contrastive_loss(a, b, temperature=0.05):
    """a, b (B, d), a[i] paired with b[i]: mean cross-entropy of a[i] picking b[i] among all b."""
    a_unit = a / a.norm(dim=1, keepdim=True)
    b_unit = b / b.norm(dim=1, keepdim=True)
    scores = torch.einsum("id,jd->ij", a_unit, b_unit) / temperature
    return -scores.log_softmax(dim=1).diagonal().mean()
