"""The mean over all B*L positions, padded target positions (loss 0 there) included: short sentences weigh less."""
def label_smoothing_loss(logits, target, pad_id, smoothing=0.1):
    log_probs = torch.log_softmax(logits, dim=-1)
    q = torch.full_like(log_probs, smoothing / (logits.size(-1) - 2))
    q.scatter_(-1, target.unsqueeze(-1), 1.0 - smoothing)
    q[..., pad_id] = 0.0
    per_position = -(q * log_probs).sum(-1)
    return (per_position * (target != pad_id)).mean()
