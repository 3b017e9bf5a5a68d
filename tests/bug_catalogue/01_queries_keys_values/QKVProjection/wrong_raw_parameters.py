"""Stores raw nn.Parameter matrices instead of nn.Linear layers."""
class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Parameter(torch.randn(d_model, d_k) / d_model ** 0.5)
        self.w_k = nn.Parameter(torch.randn(d_model, d_k) / d_model ** 0.5)
        self.w_v = nn.Parameter(torch.randn(d_model, d_v) / d_model ** 0.5)

    def forward(self, x, context=None):
        source = x if context is None else context
        return x @ self.w_q, source @ self.w_k, source @ self.w_v
