"""Subtracts the max of the whole tensor: a slice far below it underflows to 0 / 0 = NaN."""
def softmax(x, dim=-1):
    exps = torch.exp(x - x.max())
    return exps / exps.sum(dim=dim, keepdim=True)
