"""Step 0 returns 0.0 instead of the rate of step 1."""
def noam_lr(step, d_model, warmup_steps):
    if step == 0:
        return 0.0
    return d_model ** -0.5 * min(step ** -0.5, step * warmup_steps ** -1.5)
