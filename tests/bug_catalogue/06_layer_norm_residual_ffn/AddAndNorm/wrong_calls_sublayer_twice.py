"""Calls the sublayer twice (once to check its shape), which doubles the cost and any side effects."""
class AddAndNorm(nn.Module):
    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer):
        assert sublayer(x).shape == x.shape
        return self.norm(x + self.dropout(sublayer(x)))
