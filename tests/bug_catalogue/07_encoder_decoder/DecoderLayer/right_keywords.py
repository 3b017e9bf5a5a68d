"""Keyword arguments for every attention call: same layer, other spelling."""
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
        x = self.norm1(x + self.dropout(self.self_attn(query=x, key=x, value=x, mask=tgt_mask)))
        x = self.norm2(x + self.dropout(self.cross_attn(query=x, key=memory, value=memory, mask=src_mask)))
        return self.norm3(x + self.dropout(self.feed_forward(x)))
