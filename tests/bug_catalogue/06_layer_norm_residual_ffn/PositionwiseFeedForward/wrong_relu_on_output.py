"""Applies a ReLU after linear2 as well, so the block can never output a negative value."""
class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return torch.relu(self.linear2(self.dropout(torch.relu(self.linear1(x)))))
