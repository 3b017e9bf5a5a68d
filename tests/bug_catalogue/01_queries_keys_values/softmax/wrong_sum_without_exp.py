"""Normalises the raw scores by their sum, without exponentiating: weights can be negative."""
def softmax(x, dim=-1):
    return x / x.sum(dim=dim, keepdim=True)
