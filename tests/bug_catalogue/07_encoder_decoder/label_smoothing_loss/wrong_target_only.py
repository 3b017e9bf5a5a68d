"""Only the target is smoothed (1 - eps on it), the other words get nothing: a scaled-down cross-entropy."""
def label_smoothing_loss(logits, target, pad_id, smoothing=0.1):
    log_probs = torch.log_softmax(logits, dim=-1)
    nll = -log_probs.gather(-1, target.unsqueeze(-1)).squeeze(-1)
    return ((1.0 - smoothing) * nll)[target != pad_id].mean()
