"""Returns an additive float mask (0 at real tokens, -inf at padding) instead of a bool mask."""
import torch

def make_padding_mask(tokens, pad_id):
    mask = torch.zeros(tokens.shape, dtype=torch.float32, device=tokens.device)
    mask = mask.masked_fill(tokens == pad_id, float("-inf"))
    return mask[:, None, None, :]
