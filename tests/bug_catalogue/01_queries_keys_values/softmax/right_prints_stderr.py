"""A correct softmax that prints a debug line to sys.stderr."""
import sys

def softmax(x, dim=-1):
    print("softmax called with shape", tuple(x.shape), file=sys.stderr)
    e = (x - x.max(dim=dim, keepdim=True)[0]).exp()
    return e / e.sum(dim=dim, keepdim=True)
