"""Builds its own table inline (exp-log form) without the helper, and warns when the input is long."""
import warnings

class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)
        self.max_len = max_len
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        if x.size(1) > self.max_len:
            raise ValueError(f"sequence length ({x.size(1)}) is longer than max_len ({self.max_len})")
        if x.size(1) > self.max_len // 2:
            warnings.warn("sequence uses more than half of the positional table")
        return self.drop(x + self.pe[: x.size(1)].unsqueeze(0))
