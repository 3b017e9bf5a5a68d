"""Correct: F.dropout with training=self.training and an explicit torch.add."""
import torch.nn.functional as F

class AddAndNorm(nn.Module):
    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(d_model, eps=1e-5)
        self.dropout = nn.Dropout(p=dropout)

    def forward(self, x, sublayer):
        dropped = F.dropout(sublayer(x), p=self.dropout.p, training=self.training)
        return self.norm(torch.add(x, dropped))
