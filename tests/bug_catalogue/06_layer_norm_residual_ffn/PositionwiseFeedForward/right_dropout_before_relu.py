"""Correct: dropout before F.relu; dropout only zeroes and scales by 1/(1-p) > 0, so the order does not matter."""
import torch.nn.functional as F

class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.linear2(F.relu(self.dropout(self.linear1(x))))
