"""Registers a (1, max_len, d_model) buffer (persistent=True) and slices the sequence axis."""
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.dropout = nn.Dropout(p=dropout)
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model).unsqueeze(0), persistent=True)

    def forward(self, x):
        seq_len, max_len = x.shape[1], self.pe.shape[1]
        if seq_len > max_len:
            raise ValueError(f"Input has {seq_len} positions but the encoding only covers max_len={max_len}.")
        return self.dropout(x + self.pe[:, :seq_len, :])
