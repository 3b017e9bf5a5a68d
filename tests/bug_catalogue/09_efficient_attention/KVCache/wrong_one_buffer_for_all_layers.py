"""Ignores layer_index: every layer appends to the same pair of tensors."""
class KVCache:
    """Self-attention keys and values of the positions decoded so far, one (K, V) pair per decoder layer."""

    def __init__(self):
        self.k = None
        self.v = None

    def update(self, layer_index, k, v):
        """Append k, v (B, h, L_new, d_k) to layer `layer_index`; return all its keys and values (B, h, L, d_k)."""
        if self.k is None:
            self.k, self.v = k, v
        else:
            self.k = torch.cat([self.k, k], dim=-2)
            self.v = torch.cat([self.v, v], dim=-2)
        return self.k, self.v

    @property
    def length(self):
        """The number of positions the cache holds (0 when empty)."""
        return 0 if self.k is None else self.k.shape[-2]

    def reset(self):
        """Forget every layer's keys and values."""
        self.k = None
        self.v = None
