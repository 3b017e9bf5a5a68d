"""A correct answer that prints the shapes to sys.stderr."""
import sys

def dot_product_scores(query, keys):
    print("scores:", tuple(query.shape), tuple(keys.shape), file=sys.stderr)
    return query.matmul(keys.transpose(-1, -2))
