"""Shifts the logits by their maximum in place (logits -= max) before the log-softmax: the caller's logits are changed."""
def label_smoothing_loss(logits, target, pad_id, smoothing=0.1):
    logits -= logits.max(dim=-1, keepdim=True).values
    log_probs = logits - logits.exp().sum(dim=-1, keepdim=True).log()
    q = torch.full_like(log_probs, smoothing / (logits.size(-1) - 2))
    q.scatter_(-1, target.unsqueeze(-1), 1.0 - smoothing)
    q[..., pad_id] = 0.0
    per_position = -(q * log_probs).sum(dim=-1)
    return per_position[target != pad_id].mean()
