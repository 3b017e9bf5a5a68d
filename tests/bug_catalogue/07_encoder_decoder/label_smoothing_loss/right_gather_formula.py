"""The sum written out: (1 - eps) * nll(target) + eps / (V - 2) * (the -log p of every word but target and pad)."""
def label_smoothing_loss(logits, target, pad_id, smoothing=0.1):
    log_p = F.log_softmax(logits, dim=-1)
    vocab = log_p.shape[-1]
    nll = -torch.gather(log_p, -1, target[..., None])[..., 0]
    others = -log_p.sum(-1) + log_p[..., pad_id] - nll
    loss = (1 - smoothing) * nll + smoothing / (vocab - 2) * others
    keep = target.ne(pad_id)
    return loss.masked_select(keep).mean()
