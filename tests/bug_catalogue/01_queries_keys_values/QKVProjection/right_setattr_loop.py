"""Creates the three layers in a loop with setattr, and returns them via a generator."""
class QKVProjection(nn.Module):
    def __init__(self, d_model, d_k, d_v):
        super().__init__()
        for name, size in (("w_q", d_k), ("w_k", d_k), ("w_v", d_v)):
            setattr(self, name, nn.Linear(d_model, size, bias=False))

    def forward(self, x, context=None):
        kv_source = context if context is not None else x
        inputs = {"w_q": x, "w_k": kv_source, "w_v": kv_source}
        return tuple(getattr(self, name)(t) for name, t in inputs.items())
