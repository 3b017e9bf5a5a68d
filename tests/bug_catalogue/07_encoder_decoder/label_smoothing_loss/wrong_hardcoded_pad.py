"""Column 0 and id 0 treated as padding whatever pad_id says."""
def label_smoothing_loss(logits, target, pad_id, smoothing=0.1):
    log_probs = torch.log_softmax(logits, dim=-1)
    q = torch.full_like(log_probs, smoothing / (logits.size(-1) - 2))
    q.scatter_(-1, target.unsqueeze(-1), 1.0 - smoothing)
    q[..., 0] = 0.0
    return -(q * log_probs).sum(-1)[target != 0].mean()
