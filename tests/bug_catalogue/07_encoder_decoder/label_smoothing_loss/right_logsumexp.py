"""Correct: log-probabilities as logits - logsumexp (a new tensor), q built with one_hot and where."""
def label_smoothing_loss(logits, target, pad_id, smoothing=0.1):
    vocab = logits.size(-1)
    log_probs = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
    one_hot = F.one_hot(target, vocab).to(log_probs.dtype)
    q = one_hot * (1.0 - smoothing) + (1 - one_hot) * (smoothing / (vocab - 2))
    is_pad = torch.arange(vocab, device=logits.device) == pad_id
    q = torch.where(is_pad, torch.zeros_like(q), q)
    per_position = -(q * log_probs).sum(dim=-1)
    real = (target != pad_id).to(per_position.dtype)
    return (per_position * real).sum() / real.sum()
