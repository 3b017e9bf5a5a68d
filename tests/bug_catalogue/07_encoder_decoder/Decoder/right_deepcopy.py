"""Deep copies of one fresh layer: every level still has its own weights."""
from copy import deepcopy


class Decoder(nn.Module):
    def __init__(self, make_layer, num_layers):
        super().__init__()
        layer = make_layer()
        self.layers = nn.ModuleList([deepcopy(layer) for _ in range(num_layers)])

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, src_mask, tgt_mask)
        return x
