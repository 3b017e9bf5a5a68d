"""smoothing / (V - 1) on the other words while <pad> gets 0: the target distribution sums to less than 1."""
def label_smoothing_loss(logits, target, pad_id, smoothing=0.1):
    log_probs = torch.log_softmax(logits, dim=-1)
    q = torch.full_like(log_probs, smoothing / (logits.size(-1) - 1))
    q.scatter_(-1, target.unsqueeze(-1), 1.0 - smoothing)
    q[..., pad_id] = 0.0
    real = target != pad_id
    return -(q * log_probs).sum(-1)[real].mean()
