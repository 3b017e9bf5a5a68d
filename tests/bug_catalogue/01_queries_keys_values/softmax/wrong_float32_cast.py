"""Casts the input to float32 "to be safe", so a float64 input comes back as float32."""
def softmax(x, dim=-1):
    x = x.float()
    shifted = x - x.amax(dim=dim, keepdim=True)
    exps = torch.exp(shifted)
    return exps / exps.sum(dim=dim, keepdim=True)
