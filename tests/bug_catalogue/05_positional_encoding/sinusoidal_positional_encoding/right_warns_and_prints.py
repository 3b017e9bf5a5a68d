"""A correct table (outer product of positions and frequencies) that warns and prints to stderr."""
import sys
import warnings

def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 != 0:
        raise ValueError("d_model must be even")
    if max_len > 1000:
        warnings.warn("building a long positional encoding table")
    print(f"PE table {max_len} x {d_model}", file=sys.stderr)
    freqs = 1.0 / (10000.0 ** (torch.arange(0, d_model, 2).float() / d_model))
    angle = torch.outer(torch.arange(max_len).float(), freqs)
    pe = torch.empty(max_len, d_model)
    pe[:, ::2] = angle.sin()
    pe[:, 1::2] = angle.cos()
    return pe
