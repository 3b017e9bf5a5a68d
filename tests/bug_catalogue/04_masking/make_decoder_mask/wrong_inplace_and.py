"""Combines the masks in place, padding &= causal: the (B, 1, 1, L) padding mask cannot hold the (B, 1, L, L) result."""
import torch

def make_decoder_mask(tokens, pad_id):
    mask = make_padding_mask(tokens, pad_id)
    mask &= make_causal_mask(tokens.size(1), device=tokens.device)
    return mask
