"""Pre-norm instead of the paper's post-norm: x + dropout(sublayer(norm(x)))."""
class EncoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, src_mask=None):
        h = self.norm1(x)
        x = x + self.dropout(self.self_attn(h, h, h, src_mask))
        return x + self.dropout(self.feed_forward(self.norm2(x)))
