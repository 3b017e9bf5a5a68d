"""Views the tokens of the whole batch as one flat list first, x.view(B * L, h, d_k): fails on inputs that are not contiguous."""
def split_heads(x, num_heads):
    batch, length, d_model = x.shape
    flat = x.view(batch * length, num_heads, d_model // num_heads)
    return flat.view(batch, length, num_heads, -1).transpose(1, 2)
