"""A float lower triangle made on the default device, converted with .bool() and moved with .to(device); warns."""
import warnings

import torch

def make_causal_mask(size, device=None):
    warnings.warn("causal mask built on the CPU first", UserWarning)
    mask = torch.ones(size, size).tril().bool()
    return mask if device is None else mask.to(device)
