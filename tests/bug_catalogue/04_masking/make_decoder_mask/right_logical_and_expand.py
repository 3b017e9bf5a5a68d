"""torch.logical_and of explicitly expanded masks; the causal part moved with .to(tokens.device)."""
import torch

def make_decoder_mask(tokens, pad_id):
    B, L = tokens.shape
    causal = torch.tril(torch.ones(L, L)).bool().to(tokens.device)
    padding = make_padding_mask(tokens, pad_id).expand(B, 1, L, L)
    return torch.logical_and(padding, causal.expand(B, 1, L, L))
