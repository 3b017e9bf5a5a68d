"""Puts the new position before the old ones: the cached sequence comes out in the wrong order."""
class KVCache:
    """Self-attention keys and values of the positions decoded so far, one (K, V) pair per decoder layer."""

    def __init__(self):
        self.keys = {}
        self.values = {}

    def update(self, layer_index, k, v):
        """Append k, v (B, h, L_new, d_k) to layer `layer_index`; return all its keys and values (B, h, L, d_k)."""
        if layer_index in self.keys:
            k = torch.cat([k, self.keys[layer_index]], dim=-2)
            v = torch.cat([v, self.values[layer_index]], dim=-2)
        self.keys[layer_index] = k
        self.values[layer_index] = v
        return k, v

    @property
    def length(self):
        """The number of positions the cache holds (0 when empty)."""
        return self.keys[0].shape[-2] if 0 in self.keys else 0

    def reset(self):
        """Forget every layer's keys and values."""
        self.keys.clear()
        self.values.clear()
