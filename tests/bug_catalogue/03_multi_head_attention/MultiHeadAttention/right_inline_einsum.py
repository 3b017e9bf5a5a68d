"""Correct: own attention inline with einsum, finfo.min fill and zeroed fully masked rows; heads via unflatten."""

class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        if d_model % num_heads:
            raise ValueError(f"num_heads ({num_heads}) must divide d_model ({d_model})")
        self.h = num_heads
        self.w_q = nn.Linear(d_model, d_model, bias=True)
        self.w_k = nn.Linear(d_model, d_model, bias=True)
        self.w_v = nn.Linear(d_model, d_model, bias=True)
        self.w_o = nn.Linear(d_model, d_model, bias=True)
        self.drop = nn.Dropout(p=dropout)

    def forward(self, query, key, value, mask=None):
        q = self.w_q(query).unflatten(-1, (self.h, -1))          # (B, Lq, h, d_k)
        k = self.w_k(key).unflatten(-1, (self.h, -1))            # (B, Lk, h, d_k)
        v = self.w_v(value).unflatten(-1, (self.h, -1))
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) * q.shape[-1] ** -0.5
        if mask is not None:
            allowed = torch.broadcast_to(mask, scores.shape)
            scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
        weights = torch.softmax(scores, dim=-1)
        if mask is not None:
            weights = weights * allowed                            # fully masked rows -> 0
        self.attention_weights = weights
        out = torch.einsum("bhqk,bkhd->bqhd", self.drop(weights), v).flatten(-2)
        return self.w_o(out)
