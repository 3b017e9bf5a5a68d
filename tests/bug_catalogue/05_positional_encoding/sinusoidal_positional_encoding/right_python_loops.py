"""Builds the table with pure-Python loops and the math module, then converts with torch.tensor."""
def sinusoidal_positional_encoding(max_len, d_model):
    if d_model % 2 == 1:
        raise ValueError(f"Expected an even d_model, got {d_model}.")
    rows = []
    for p in range(max_len):
        row = []
        for i in range(d_model // 2):
            angle = p / (10000 ** (2 * i / d_model))
            row.append(math.sin(angle))
            row.append(math.cos(angle))
        rows.append(row)
    return torch.tensor(rows, dtype=torch.float32).reshape(max_len, d_model)
