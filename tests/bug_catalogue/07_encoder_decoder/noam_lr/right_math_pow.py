"""math.pow and math.sqrt instead of the ** operator."""
import math


def noam_lr(step, d_model, warmup_steps):
    s = float(step if step > 0 else 1)
    return min(1.0 / math.sqrt(s), s * math.pow(warmup_steps, -1.5)) / math.sqrt(d_model)
