"""A correct stack that prints the depth to stderr on every call."""
import sys


class Encoder(nn.Module):
    def __init__(self, make_layer, num_layers):
        super().__init__()
        self.layers = nn.ModuleList([make_layer() for _ in range(num_layers)])

    def forward(self, x, src_mask=None):
        print(f"encoder: {len(self.layers)} layers", file=sys.stderr)
        for layer in self.layers:
            x = layer(x, src_mask)
        return x
