"""nn.LayerNorm, three named dropouts and keyword arguments: same layer, other spelling."""
class DecoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout=dropout)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout=dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout=dropout)
        self.norm1, self.norm2, self.norm3 = (nn.LayerNorm(d_model) for _ in range(3))
        self.dropout1, self.dropout2, self.dropout3 = (nn.Dropout(dropout) for _ in range(3))

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        x = self.norm1(x + self.dropout1(self.self_attn(query=x, key=x, value=x, mask=tgt_mask)))
        x = self.norm2(x + self.dropout2(self.cross_attn(query=x, key=memory, value=memory, mask=src_mask)))
        return self.norm3(x + self.dropout3(self.feed_forward(x)))
