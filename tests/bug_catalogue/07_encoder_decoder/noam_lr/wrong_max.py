"""max instead of min of the two branches: the rate never warms up and grows forever."""
def noam_lr(step, d_model, warmup_steps):
    step = max(step, 1)
    return d_model ** -0.5 * max(step ** -0.5, step * warmup_steps ** -1.5)
