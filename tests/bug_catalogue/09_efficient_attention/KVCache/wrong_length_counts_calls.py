"""length counts update calls (one per layer per step), not cached positions."""
class KVCache:
    """Self-attention keys and values of the positions decoded so far, one (K, V) pair per decoder layer."""

    def __init__(self):
        self.keys = {}
        self.values = {}
        self.length = 0

    def update(self, layer_index, k, v):
        """Append k, v (B, h, L_new, d_k) to layer `layer_index`; return all its keys and values (B, h, L, d_k)."""
        if layer_index in self.keys:
            k = torch.cat([self.keys[layer_index], k], dim=-2)
            v = torch.cat([self.values[layer_index], v], dim=-2)
        self.keys[layer_index] = k
        self.values[layer_index] = v
        self.length += 1
        return k, v

    def reset(self):
        """Forget every layer's keys and values."""
        self.keys.clear()
        self.values.clear()
        self.length = 0
