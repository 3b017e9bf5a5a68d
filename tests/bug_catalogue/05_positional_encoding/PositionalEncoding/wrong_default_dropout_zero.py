"""Defaults dropout to 0.0 instead of the paper's 0.1: a module built without the argument never drops out."""
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.0):
        super().__init__()
        self.max_len = max_len
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))

    def forward(self, x):
        length = x.size(-2)
        if length > self.max_len:
            raise ValueError(f"sequence length {length} exceeds max_len {self.max_len} of the positional encoding")
        return self.dropout(x + self.pe[:length])
