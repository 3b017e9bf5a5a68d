"""Calls torch's fused F.scaled_dot_product_attention with scale=1 instead of building the lookup."""
import torch.nn.functional as F

def soft_lookup(query, keys, values):
    return F.scaled_dot_product_attention(query, keys, values, scale=1.0)
