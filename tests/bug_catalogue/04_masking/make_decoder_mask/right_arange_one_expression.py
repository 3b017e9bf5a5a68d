"""Everything from aranges in one broadcast expression, without the helper functions."""
import torch

def make_decoder_mask(tokens, pad_id):
    L = tokens.shape[1]
    i = torch.arange(L, device=tokens.device)
    return (tokens != pad_id)[:, None, None, :] & (i[None, None, :, None] >= i[None, None, None, :])
