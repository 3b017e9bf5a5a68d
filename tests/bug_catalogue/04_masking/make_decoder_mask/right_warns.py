"""A correct decoder mask that warns and prints to stderr; repeats the causal mask and masked_fills the pads."""
import sys
import warnings

import torch

def make_decoder_mask(tokens, pad_id):
    warnings.warn("decoder mask", RuntimeWarning)
    print("building decoder mask", file=sys.stderr)
    B, L = tokens.shape
    mask = make_causal_mask(L, device=tokens.device).repeat(B, 1, 1, 1)
    return mask.masked_fill((tokens == pad_id)[:, None, None, :], False)
