"""Correct but slow: a Python loop over the heads, each attending with its own slice of the projections."""

class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError(f"{d_model} features cannot be split into {num_heads} equal heads")
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, query, key, value, mask=None):
        q_all, k_all, v_all = self.w_q(query), self.w_k(key), self.w_v(value)
        outputs, all_weights = [], []
        for i in range(self.num_heads):
            cols = slice(i * self.d_k, (i + 1) * self.d_k)
            head_mask = None
            if mask is not None:
                m = mask
                while m.dim() < 4:
                    m = m.unsqueeze(0)
                head_mask = m[:, i if m.shape[1] > 1 else 0]      # (B or 1, Lq or 1, Lk)
            _, w = scaled_dot_product_attention(q_all[..., cols], k_all[..., cols], v_all[..., cols], head_mask)
            all_weights.append(w)
            outputs.append(self.dropout(w) @ v_all[..., cols])
        self.attention_weights = torch.stack(all_weights, dim=1)
        return self.w_o(torch.cat(outputs, dim=-1))
