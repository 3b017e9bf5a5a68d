"""Renames forward's context argument to memory (the decoder's word for it): proj(x, context=c) no longer works."""
class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, memory=None):
        source = x if memory is None else memory
        return self.w_q(x), self.w_k(source), self.w_v(source)
