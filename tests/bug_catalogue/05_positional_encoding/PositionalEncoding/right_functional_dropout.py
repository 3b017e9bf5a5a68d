"""Uses F.dropout with self.training instead of an nn.Dropout module, and pe.narrow for the slice."""
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=5000, dropout=0.1):
        super().__init__()
        self.p = dropout
        self.register_buffer("pe", sinusoidal_positional_encoding(max_len, d_model))

    def forward(self, x):
        L = x.shape[-2]
        if L > self.pe.shape[0]:
            raise ValueError(f"L={L} > max_len={self.pe.shape[0]}")
        return F.dropout(self.pe.narrow(0, 0, L) + x, p=self.p, training=self.training)
