"""Correct, but warns and prints a debug line to stderr on every call."""
import sys
import warnings

class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        warnings.warn("building my own LayerNorm")
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        print("LayerNorm input shape", tuple(x.shape), file=sys.stderr)
        warnings.warn("LayerNorm forward")
        mean = x.mean(dim=-1, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
