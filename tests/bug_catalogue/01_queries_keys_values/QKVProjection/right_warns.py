"""A correct projection that warns when it runs as cross-attention and when it is built."""
import warnings

class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        warnings.warn("QKVProjection: building three bias-free projections")
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, context=None):
        if context is not None:
            warnings.warn("QKVProjection: cross-attention")
            return self.w_q(x), self.w_k(context), self.w_v(context)
        return self.w_q(x), self.w_k(x), self.w_v(x)
