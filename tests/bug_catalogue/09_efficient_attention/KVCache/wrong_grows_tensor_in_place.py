"""Grows the first tensor it was given in place (.data = torch.cat(...)), changing the caller's tensor."""
class KVCache:
    """Self-attention keys and values of the positions decoded so far, one (K, V) pair per decoder layer."""

    def __init__(self):
        self.keys = {}
        self.values = {}

    def update(self, layer_index, k, v):
        """Append k, v (B, h, L_new, d_k) to layer `layer_index`; return all its keys and values (B, h, L, d_k)."""
        if layer_index not in self.keys:
            self.keys[layer_index], self.values[layer_index] = k, v
        else:
            # reuse the stored tensor objects instead of creating new ones
            self.keys[layer_index].data = torch.cat([self.keys[layer_index], k], dim=-2)
            self.values[layer_index].data = torch.cat([self.values[layer_index], v], dim=-2)
        return self.keys[layer_index], self.values[layer_index]

    @property
    def length(self):
        """The number of positions the cache holds (0 when empty)."""
        return self.keys[0].shape[-2] if 0 in self.keys else 0

    def reset(self):
        """Forget every layer's keys and values."""
        self.keys.clear()
        self.values.clear()
