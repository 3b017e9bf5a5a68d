"""Builds the causal part without device=: it lands on the default device, not tokens.device."""
import torch

def make_decoder_mask(tokens, pad_id):
    L = tokens.size(1)
    causal = torch.ones(L, L, dtype=torch.bool).tril()
    return make_padding_mask(tokens, pad_id) & causal
