"""Hands the work to PyTorch's F.multi_head_attention_forward instead of building the layer."""
import torch.nn.functional as F

class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, num_heads, dropout=0.0):
        super().__init__()
        if d_model % num_heads != 0:
            raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
        self.d_model, self.num_heads, self.p = d_model, num_heads, dropout
        self.w_q = nn.Linear(d_model, d_model)
        self.w_k = nn.Linear(d_model, d_model)
        self.w_v = nn.Linear(d_model, d_model)
        self.w_o = nn.Linear(d_model, d_model)

    def forward(self, query, key, value, mask=None):
        attn_mask, key_padding_mask = None, None
        B, Lq, Lk = query.shape[0], query.shape[1], key.shape[1]
        if mask is not None:
            attn_mask = ~torch.broadcast_to(mask, (B, self.num_heads, Lq, Lk)).reshape(B * self.num_heads, Lq, Lk)
        out, weights = F.multi_head_attention_forward(
            query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1), self.d_model, self.num_heads,
            torch.cat([self.w_q.weight, self.w_k.weight, self.w_v.weight]),
            torch.cat([self.w_q.bias, self.w_k.bias, self.w_v.bias]), None, None, False, self.p,
            self.w_o.weight, self.w_o.bias, training=self.training, key_padding_mask=key_padding_mask,
            need_weights=True, attn_mask=attn_mask, average_attn_weights=False)
        self.attention_weights = weights
        return out.transpose(0, 1)
