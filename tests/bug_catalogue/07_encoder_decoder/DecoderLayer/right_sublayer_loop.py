"""The three sublayers as (function, norm) pairs run in a loop."""
class DecoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.norm3 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        sublayers = [
            (lambda t: self.self_attn(t, t, t, tgt_mask), self.norm1),
            (lambda t: self.cross_attn(t, memory, memory, src_mask), self.norm2),
            (self.feed_forward, self.norm3),
        ]
        for sublayer, norm in sublayers:
            x = norm(x + self.dropout(sublayer(x)))
        return x
