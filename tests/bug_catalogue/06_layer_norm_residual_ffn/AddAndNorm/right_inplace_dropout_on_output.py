"""Correct: nn.Dropout(inplace=True) on the sublayer's output, a new tensor (x is only read)."""
class AddAndNorm(nn.Module):
    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(p=dropout, inplace=True)

    def forward(self, x, sublayer):
        update = self.dropout(sublayer(x))
        return self.norm(update + x)
