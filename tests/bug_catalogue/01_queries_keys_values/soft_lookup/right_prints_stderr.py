"""A correct answer that prints the weights' shape to sys.stderr."""
import sys

def soft_lookup(query, keys, values):
    weights = softmax(dot_product_scores(query, keys))
    print("weights", tuple(weights.shape), file=sys.stderr)
    return torch.matmul(weights, values)
