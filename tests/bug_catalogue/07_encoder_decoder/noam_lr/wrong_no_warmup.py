"""No min and no warm-up: only the decay branch d_model^-0.5 * step^-0.5."""
def noam_lr(step, d_model, warmup_steps):
    step = max(step, 1)
    return d_model ** -0.5 * step ** -0.5
