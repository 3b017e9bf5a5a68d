"""Keyword arguments and a named variable for each sublayer output: same layer, other spelling."""
class EncoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, src_mask=None):
        attended = self.self_attn(query=x, key=x, value=x, mask=src_mask)
        x = self.norm1(x + self.dropout(attended))
        fed = self.feed_forward(x)
        return self.norm2(x + self.dropout(fed))
