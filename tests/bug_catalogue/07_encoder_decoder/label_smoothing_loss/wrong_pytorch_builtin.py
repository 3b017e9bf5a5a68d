"""PyTorch's own smoothing: eps / V on every word, target and <pad> column included."""
def label_smoothing_loss(logits, target, pad_id, smoothing=0.1):
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1), ignore_index=pad_id,
                           label_smoothing=smoothing)
