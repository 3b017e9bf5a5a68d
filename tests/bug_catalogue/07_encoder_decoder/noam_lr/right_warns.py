"""A correct schedule that warns about step 0."""
import warnings


def noam_lr(step, d_model, warmup_steps):
    if step == 0:
        warnings.warn("noam_lr: step 0 treated as step 1")
        step = 1
    return d_model ** -0.5 * min(step ** -0.5, step * warmup_steps ** -1.5)
