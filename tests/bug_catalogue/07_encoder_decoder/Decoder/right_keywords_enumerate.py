"""Keyword arguments and an index loop: same stack, other spelling."""
class Decoder(nn.Module):
    def __init__(self, make_layer, num_layers):
        super().__init__()
        layers = []
        for _ in range(num_layers):
            layers.append(make_layer())
        self.layers = nn.ModuleList(layers)

    def forward(self, x, memory, src_mask=None, tgt_mask=None):
        for i in range(len(self.layers)):
            x = self.layers[i](x, memory=memory, src_mask=src_mask, tgt_mask=tgt_mask)
        return x
