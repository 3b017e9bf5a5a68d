"""Computed with torch: returns a 0-d tensor instead of a Python float."""
def noam_lr(step, d_model, warmup_steps):
    step = torch.tensor(float(max(step, 1)))
    return d_model ** -0.5 * torch.minimum(step ** -0.5, step * warmup_steps ** -1.5)
