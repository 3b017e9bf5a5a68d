"""torch.logical_not of torch.eq, with the two new axes added one at a time."""
import torch

def make_padding_mask(tokens, pad_id):
    return torch.logical_not(torch.eq(tokens, pad_id))[:, None][:, :, None]
