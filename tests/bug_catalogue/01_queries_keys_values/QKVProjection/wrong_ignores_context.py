"""Ignores the context: always self-attention, even when cross-attention is asked for."""
class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, context=None):
        return self.w_q(x), self.w_k(x), self.w_v(x)
