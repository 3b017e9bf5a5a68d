"""Clones of one fresh layer with copy.deepcopy (the Annotated Transformer's clones()): own weights each."""
import copy


class Encoder(nn.Module):
    def __init__(self, make_layer, num_layers):
        super().__init__()
        prototype = make_layer()
        self.layers = nn.ModuleList(copy.deepcopy(prototype) for _ in range(num_layers))

    def forward(self, x, src_mask=None):
        for layer in self.layers:
            x = layer(x, src_mask)
        return x
