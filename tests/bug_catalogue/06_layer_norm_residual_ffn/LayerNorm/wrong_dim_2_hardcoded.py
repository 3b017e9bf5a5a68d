"""Normalises over dim=2, the last dimension of a (B, L, d_model) batch only: other ranks break."""
class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean(dim=2, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=2, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
