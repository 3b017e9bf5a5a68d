"""log(softmax(...)) instead of log_softmax: confident logits underflow to log 0 and the loss to inf or nan."""
def label_smoothing_loss(logits, target, pad_id, smoothing=0.1):
    log_probs = torch.log(torch.softmax(logits, dim=-1))
    q = torch.full_like(log_probs, smoothing / (logits.size(-1) - 2))
    q.scatter_(-1, target.unsqueeze(-1), 1.0 - smoothing)
    q[..., pad_id] = 0.0
    return -(q * log_probs).sum(-1)[target != pad_id].mean()
