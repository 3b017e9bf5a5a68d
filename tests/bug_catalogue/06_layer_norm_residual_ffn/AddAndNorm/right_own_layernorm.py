"""Correct: uses the LayerNorm class from Exercise 1 as self.norm."""
class AddAndNorm(nn.Module):
    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer):
        residual = x
        out = sublayer(x)
        out = self.dropout(out)
        return self.norm(residual + out)
