"""Builds the mask from sentence lengths and an arange (right padding), then reshapes with view."""
import torch

def make_padding_mask(tokens, pad_id):
    B, L = tokens.shape
    lengths = (tokens != pad_id).sum(dim=1)
    positions = torch.arange(L, device=tokens.device)
    return (positions[None, :] < lengths[:, None]).view(B, 1, 1, L)
