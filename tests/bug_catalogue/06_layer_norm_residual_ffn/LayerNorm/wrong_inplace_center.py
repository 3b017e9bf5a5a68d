"""Centres x in place (x -= mean), which overwrites the caller's tensor."""
class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        if not x.requires_grad:
            x -= x.mean(dim=-1, keepdim=True)
        else:
            x = x - x.mean(dim=-1, keepdim=True)
        var = (x ** 2).mean(dim=-1, keepdim=True)
        return x / torch.sqrt(var + self.eps) * self.weight + self.bias
