"""Correct: draws its own keep mask with torch.bernoulli and scales the kept weights by 1 / (1 - p) (inverted dropout by hand)."""

class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.num_heads = num_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        q = split_heads(self.w_q(query), self.num_heads)
        k = split_heads(self.w_k(key), self.num_heads)
        v = split_heads(self.w_v(value), self.num_heads)
        heads, weights = scaled_dot_product_attention(q, k, v, mask)
        self.attention_weights = weights
        p = self.dropout.p
        if self.training and p > 0:
            keep = torch.bernoulli(torch.full_like(weights, 1.0 - p))
            heads = (weights * keep / (1.0 - p)) @ v
        return self.w_o(merge_heads(heads))
