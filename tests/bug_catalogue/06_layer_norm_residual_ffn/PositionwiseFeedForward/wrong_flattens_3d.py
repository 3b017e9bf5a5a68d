"""Unpacks x as (B, L, d_model) and flattens it: inputs with another number of leading dimensions fail."""
class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        batch, length, d_model = x.shape
        h = self.dropout(torch.relu(self.linear1(x.reshape(batch * length, d_model))))
        return self.linear2(h).reshape(batch, length, d_model)
