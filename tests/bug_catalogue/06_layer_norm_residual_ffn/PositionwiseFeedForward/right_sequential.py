"""Correct: an nn.Sequential built from the named layers (nn.ReLU module), attribute names kept."""
class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)
        self.net = nn.Sequential(self.linear1, nn.ReLU(), self.dropout, self.linear2)

    def forward(self, x):
        return self.net(x)
