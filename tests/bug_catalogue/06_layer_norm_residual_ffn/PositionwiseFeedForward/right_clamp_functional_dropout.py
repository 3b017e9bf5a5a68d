"""Correct: clamp(min=0) as the ReLU and F.dropout with training=self.training."""
import torch.nn.functional as F

class PositionwiseFeedForward(nn.Module):
    def __init__(self, d_model, d_ff, dropout=0.1):
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        hidden = self.linear1(x).clamp(min=0)
        hidden = F.dropout(hidden, p=self.dropout.p, training=self.training)
        return self.linear2(hidden)
