"""torch functions captured when the course package is first imported.

Test cells compare a student's answer with torch's own implementation. A notebook
imports this module in its first (locked) cell, before any answer runs, so a later
`torch.softmax = ...` in an answer cell cannot change what the tests compare against.
"""
import torch
import torch.nn.functional as F

softmax = torch.softmax
matmul = torch.matmul
allclose = torch.allclose
isclose = torch.isclose
isfinite = torch.isfinite
sdpa = F.scaled_dot_product_attention
cross_entropy = F.cross_entropy
layer_norm = F.layer_norm
Tensor = torch.Tensor
# Reference modules the hidden tests build, captured the same way.
MultiheadAttention = torch.nn.MultiheadAttention
LayerNorm = torch.nn.LayerNorm
TransformerEncoderLayer = torch.nn.TransformerEncoderLayer
TransformerDecoderLayer = torch.nn.TransformerDecoderLayer
