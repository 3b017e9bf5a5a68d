"""Splits the heads inline with a plain reshape to (B, h, L, d_k) (no transpose), and merges the same way."""

class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        B, Lq, D = query.shape
        Lk = key.shape[1]
        q = self.w_q(query).reshape(B, self.num_heads, Lq, self.d_k)
        k = self.w_k(key).reshape(B, self.num_heads, Lk, self.d_k)
        v = self.w_v(value).reshape(B, self.num_heads, Lk, self.d_k)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        self.attention_weights = weights
        if self.training and self.dropout.p > 0:
            heads = self.dropout(weights) @ v
        return self.w_o(heads.reshape(B, Lq, D))
