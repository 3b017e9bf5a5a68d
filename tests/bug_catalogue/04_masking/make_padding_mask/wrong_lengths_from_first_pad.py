"""Finds each sentence's length as the position of its first pad with argmax: a sentence without padding gets length 0."""
import torch

def make_padding_mask(tokens, pad_id):
    B, L = tokens.shape
    lengths = (tokens == pad_id).int().argmax(dim=1)
    positions = torch.arange(L, device=tokens.device)
    return (positions[None, :] < lengths[:, None])[:, None, None, :]
