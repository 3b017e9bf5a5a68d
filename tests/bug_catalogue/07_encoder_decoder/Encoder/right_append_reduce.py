"""Layers appended in a while loop; forward folds them with functools.reduce."""
import functools


class Encoder(nn.Module):
    def __init__(self, make_layer, num_layers):
        super().__init__()
        self.layers = nn.ModuleList()
        while len(self.layers) < num_layers:
            self.layers.append(make_layer())

    def forward(self, x, src_mask=None):
        return functools.reduce(lambda h, layer: layer(h, src_mask=src_mask), self.layers, x)
