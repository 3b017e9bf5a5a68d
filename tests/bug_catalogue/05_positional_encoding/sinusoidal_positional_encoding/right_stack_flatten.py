"""Interleaves with torch.stack(..., dim=-1).flatten(-2), computing in float64 and casting to float32."""
def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError(f"d_model={d_model} is odd; it must be even")
    p = torch.arange(max_len, dtype=torch.float64)[:, None]
    omega = torch.pow(10000.0, -torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angle = p * omega
    return torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(-2).to(torch.float32)
