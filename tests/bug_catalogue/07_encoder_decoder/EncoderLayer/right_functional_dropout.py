"""Correct: F.dropout with the module's rate and training flag instead of calling self.dropout."""
import torch.nn.functional as F

class EncoderLayer(nn.Module):
    def __init__(self, d_model, num_heads, d_ff, dropout=0.1):
        super().__init__()
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = PositionwiseFeedForward(d_model, d_ff, dropout)
        self.norm1 = LayerNorm(d_model)
        self.norm2 = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, src_mask=None):
        p = self.dropout.p
        attended = F.dropout(self.self_attn(x, x, x, src_mask), p, self.training)
        h = self.norm1(attended + x)
        transformed = F.dropout(self.feed_forward(h), p, self.training)
        return self.norm2(transformed + h)
