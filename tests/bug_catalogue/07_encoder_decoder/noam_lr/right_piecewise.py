"""An if/else on the phase instead of min (the branches are equal at warmup_steps)."""
def noam_lr(step, d_model, warmup_steps):
    step = 1 if step < 1 else step
    if step < warmup_steps:
        rate = step / warmup_steps ** 1.5
    else:
        rate = 1 / step ** 0.5
    return float(rate / d_model ** 0.5)
