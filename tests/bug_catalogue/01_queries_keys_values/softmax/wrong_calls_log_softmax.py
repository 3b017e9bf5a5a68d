"""Takes torch.log_softmax and exponentiates it: the ready-made softmax by another name."""
def softmax(x, dim=-1):
    return torch.exp(torch.log_softmax(x, dim=dim))
