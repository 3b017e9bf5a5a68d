"""Every layer reads the original input instead of the previous layer's output."""
class Encoder(nn.Module):
    def __init__(self, make_layer, num_layers):
        super().__init__()
        self.layers = nn.ModuleList([make_layer() for _ in range(num_layers)])

    def forward(self, x, src_mask=None):
        out = x
        for layer in self.layers:
            out = layer(x, src_mask)
        return out
