"""Step 0 is not handled: 0 ** -0.5 raises ZeroDivisionError."""
def noam_lr(step, d_model, warmup_steps):
    return d_model ** -0.5 * min(step ** -0.5, step * warmup_steps ** -1.5)
