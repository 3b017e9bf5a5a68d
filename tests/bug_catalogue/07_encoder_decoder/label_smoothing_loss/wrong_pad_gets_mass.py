"""smoothing / (V - 1) on every other word, <pad> included: the model is taught to expect padding."""
def label_smoothing_loss(logits, target, pad_id, smoothing=0.1):
    log_probs = torch.log_softmax(logits, dim=-1)
    q = torch.full_like(log_probs, smoothing / (logits.size(-1) - 1))
    q.scatter_(-1, target.unsqueeze(-1), 1.0 - smoothing)
    real = target != pad_id
    return -(q * log_probs).sum(-1)[real].mean()
