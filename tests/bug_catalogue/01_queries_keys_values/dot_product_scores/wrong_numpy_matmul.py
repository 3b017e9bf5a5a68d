"""Computes the product in NumPy (as in a NumPy course) and converts back: no gradient reaches query or keys."""
import numpy as np

def dot_product_scores(query, keys):
    scores = np.matmul(query.numpy(), np.swapaxes(keys.numpy(), -2, -1))
    return torch.from_numpy(scores)
