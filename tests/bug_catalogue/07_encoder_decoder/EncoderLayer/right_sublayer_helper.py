"""A generic Add & Norm helper applied to (sublayer, norm) pairs in a loop."""
class EncoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def _add_norm(self, x, sublayer, norm):
        return norm(x + self.dropout(sublayer(x)))

    def forward(self, x, src_mask=None):
        steps = [(lambda t: self.self_attn(t, t, t, src_mask), self.norm1), (self.feed_forward, self.norm2)]
        for sublayer, norm in steps:
            x = self._add_norm(x, sublayer, norm)
        return x
