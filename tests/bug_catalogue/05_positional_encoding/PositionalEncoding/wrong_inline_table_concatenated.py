"""Builds its own table inline with sines and cosines in two halves, instead of using the helper."""
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.max_len = max_len
        self.dropout = nn.Dropout(dropout)
        position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)
        angle = position / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
        self.register_buffer("pe", torch.cat([angle.sin(), angle.cos()], dim=-1))

    def forward(self, x):
        if x.size(1) > self.max_len:
            raise ValueError(f"sequence length {x.size(1)} exceeds max_len {self.max_len}")
        return self.dropout(x + self.pe[:x.size(1)])
