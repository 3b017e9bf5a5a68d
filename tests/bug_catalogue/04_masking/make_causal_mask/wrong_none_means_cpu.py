"""Replaces device=None by the CPU (device or "cpu"): None should mean PyTorch's default device."""
import torch

def make_causal_mask(size, device=None):
    device = device or torch.device("cpu")
    return torch.ones(size, size, dtype=torch.bool, device=device).tril()
