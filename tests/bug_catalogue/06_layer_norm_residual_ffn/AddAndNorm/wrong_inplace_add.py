"""Adds the sublayer output to x in place (x += ...), overwriting the caller's tensor."""
class AddAndNorm(nn.Module):
    def __init__(self, d_model, dropout=0.1):
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, sublayer):
        update = self.dropout(sublayer(x))
        if x.requires_grad:
            return self.norm(x + update)
        x += update
        return self.norm(x)
