"""d_model^0.5 instead of d_model^-0.5: wider models get larger rates."""
def noam_lr(step, d_model, warmup_steps):
    step = max(step, 1)
    return d_model ** 0.5 * min(step ** -0.5, step * warmup_steps ** -1.5)
