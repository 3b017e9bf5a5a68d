"""A correct softmax that calls warnings.warn on every call."""
import warnings

def softmax(x, dim=-1):
    warnings.warn("softmax: computing a stable softmax", UserWarning)
    m = torch.amax(x, dim=dim, keepdim=True)
    e = torch.exp(x - m)
    return e / torch.sum(e, dim=dim, keepdim=True)
