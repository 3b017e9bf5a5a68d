"""Uses the column index j in the exponent (j / d_model), so odd columns get their own, slower frequency."""
def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError(f"d_model must be even, got {d_model}")
    position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
    j = torch.arange(d_model, dtype=torch.float32)
    angle = position / 10000 ** (j / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(angle[:, 0::2])
    pe[:, 1::2] = torch.cos(angle[:, 1::2])
    return pe
