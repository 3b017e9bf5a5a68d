"""Adds the encoding in place (x += pe): it changes the caller's tensor and breaks autograd on leaves."""
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.max_len = max_len
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))

    def forward(self, x):
        if x.size(1) > self.max_len:
            raise ValueError(f"sequence length {x.size(1)} exceeds max_len {self.max_len}")
        x += self.pe[:x.size(1)]
        return self.dropout(x)
