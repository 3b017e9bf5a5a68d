"""Exp-log form: exp(x - logsumexp(x)), which is stable by construction."""
def softmax(x, dim=-1):
    return torch.exp(x - torch.logsumexp(x, dim=dim, keepdim=True))
