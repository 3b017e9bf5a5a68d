"""Layers kept in a plain Python list: PyTorch never sees their parameters."""
class Encoder(nn.Module):
    def __init__(self, make_layer, num_layers):
        super().__init__()
        self.layers = [make_layer() for _ in range(num_layers)]

    def forward(self, x, src_mask=None):
        for layer in self.layers:
            x = layer(x, src_mask)
        return x
