"""The residual is added after the norm: x + norm(dropout(sublayer(x)))."""
class EncoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, src_mask=None):
        x = x + self.norm1(self.dropout(self.self_attn(x, x, x, src_mask)))
        return x + self.norm2(self.dropout(self.feed_forward(x)))
