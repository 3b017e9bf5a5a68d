"""Correct: nn.Dropout(inplace=True) on the new tensor x + pe[:L] (x itself is never written to)."""
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.max_len = max_len
        self.dropout = nn.Dropout(dropout, inplace=True)
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))

    def forward(self, x):
        length = x.shape[1]
        if length > self.max_len:
            raise ValueError(f"got {length} positions but max_len is {self.max_len}")
        total = self.pe[:length].unsqueeze(0) + x
        return self.dropout(total)
