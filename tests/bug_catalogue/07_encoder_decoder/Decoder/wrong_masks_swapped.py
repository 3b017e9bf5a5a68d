"""The masks are passed positionally in the wrong order: layer(x, memory, tgt_mask, src_mask)."""
class Decoder(nn.Module):
    def __init__(self, make_layer, num_layers):
        super().__init__()
        self.layers = nn.ModuleList([make_layer() for _ in range(num_layers)])

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for layer in self.layers:
            x = layer(x, memory, tgt_mask, src_mask)
        return x
