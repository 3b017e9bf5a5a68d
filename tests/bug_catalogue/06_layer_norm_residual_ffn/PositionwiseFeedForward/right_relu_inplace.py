"""Correct: F.relu with inplace=True on linear1's fresh output, then the dropout module."""
import torch.nn.functional as F

class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        hidden = F.relu(self.linear1(x), inplace=True)
        return self.linear2(self.dropout(hidden))
