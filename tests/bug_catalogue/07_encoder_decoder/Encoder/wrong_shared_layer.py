"""One layer listed num_layers times ([layer] * n): every level shares one set of weights."""
class Encoder(nn.Module):
    def __init__(self, make_layer, num_layers):
        super().__init__()
        layer = make_layer()
        self.layers = nn.ModuleList([layer] * num_layers)

    def forward(self, x, src_mask=None):
        for layer in self.layers:
            x = layer(x, src_mask)
        return x
