"""Correct: always multiplies dropout(weights) by the values itself (one extra matmul); warns and prints to stderr."""
import sys
import warnings

class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        warnings.warn("MultiHeadAttention: building four projections")
        self.num_heads = num_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        print("MHA forward", tuple(query.shape), tuple(key.shape), file=sys.stderr)
        warnings.warn("MultiHeadAttention.forward called")
        q = split_heads(self.w_q(query), self.num_heads)
        k = split_heads(self.w_k(key), self.num_heads)
        v = split_heads(self.w_v(value), self.num_heads)
        _, weights = scaled_dot_product_attention(q, k, v, mask)
        self.attention_weights = weights.detach()
        return self.w_o(merge_heads(self.dropout(weights) @ v))
