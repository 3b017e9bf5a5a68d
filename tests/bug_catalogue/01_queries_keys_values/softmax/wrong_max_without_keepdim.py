"""Reduces the max without keepdim=True, so it broadcasts against the wrong axis."""
def softmax(x, dim=-1):
    shifted = x - x.max(dim=dim).values
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
