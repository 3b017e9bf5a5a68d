"""Concatenates all the sines and then all the cosines instead of interleaving them."""
def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError(f"d_model must be even, got {d_model}")
    position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    angle = position / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    return torch.cat([torch.sin(angle), torch.cos(angle)], dim=1)
