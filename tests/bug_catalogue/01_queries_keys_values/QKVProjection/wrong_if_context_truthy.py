"""Tests `if context:`, which asks a multi-element tensor for its truth value and raises."""
class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        self.w_q = nn.Linear(d_model, d_k, bias=False)
        self.w_k = nn.Linear(d_model, d_k, bias=False)
        self.w_v = nn.Linear(d_model, d_v, bias=False)

    def forward(self, x, context=None):
        source = context if context else x
        return self.w_q(x), self.w_k(source), self.w_v(source)
