"""q from one_hot and a pad mask, a weighted sum divided by the count of real positions (float64 inside)."""
def label_smoothing_loss(logits, target, pad_id, smoothing=0.1):
    vocab = logits.shape[-1]
    one_hot = F.one_hot(target, vocab).to(logits.dtype)
    not_pad = torch.ones(vocab, dtype=logits.dtype, device=logits.device)
    not_pad[pad_id] = 0
    q = (1 - smoothing) * one_hot + smoothing / (vocab - 2) * (1 - one_hot) * not_pad
    log_p = logits.double().log_softmax(-1)
    per = -(q.double() * log_p).sum(-1)
    weight = (target != pad_id).double()
    return ((per * weight).sum() / weight.sum()).to(logits.dtype)
