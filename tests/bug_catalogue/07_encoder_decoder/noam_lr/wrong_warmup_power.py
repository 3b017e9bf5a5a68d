"""warmup_steps^-0.5 instead of warmup_steps^-1.5 in the warm-up branch."""
def noam_lr(step, d_model, warmup_steps):
    step = max(step, 1)
    return d_model ** -0.5 * min(step ** -0.5, step * warmup_steps ** -0.5)
