"""No max subtraction: exp(1e4) overflows to inf and the softmax returns NaN."""
def softmax(x, dim=-1):
    exps = torch.exp(x)
    return exps / exps.sum(dim=dim, keepdim=True)
