"""Correct: statistics in float64, the result cast back to the input's dtype."""
class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        wide = x.double()
        centred = wide - wide.mean(dim=-1, keepdim=True)
        var = centred.pow(2).mean(dim=-1, keepdim=True)
        normed = (centred / (var + self.eps).sqrt()).to(x.dtype)
        return normed * self.weight + self.bias
