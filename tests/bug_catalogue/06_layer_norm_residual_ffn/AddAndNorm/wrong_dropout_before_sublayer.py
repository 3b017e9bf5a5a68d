"""Drops out the sublayer's input instead of its output: norm(x + sublayer(dropout(x)))."""
class AddAndNorm(nn.Module):
    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer):
        return self.norm(x + sublayer(self.dropout(x)))
