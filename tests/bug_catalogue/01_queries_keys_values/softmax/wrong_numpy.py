"""Computes in NumPy and converts back: no gradients, and it fails on tensors that require grad."""
import numpy as np

def softmax(x, dim=-1):
    a = x.numpy()
    e = np.exp(a - a.max(axis=dim, keepdims=True))
    return torch.from_numpy(e / e.sum(axis=dim, keepdims=True))
