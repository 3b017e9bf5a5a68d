"""A correct cache (defaultdict of tuples) that warns and prints to stderr on every update."""
import collections
import sys
import warnings


class KVCache:
    """Self-attention keys and values of the positions decoded so far, one (K, V) pair per decoder layer."""

    def __init__(self):
        self.store = collections.defaultdict(tuple)

    def update(self, layer_index, k, v):
        """Append k, v (B, h, L_new, d_k) to layer `layer_index`; return all its keys and values (B, h, L, d_k)."""
        warnings.warn("KVCache.update: appending", UserWarning)
        print(f"layer {layer_index}: +{k.shape[-2]} positions", file=sys.stderr)
        if self.store[layer_index]:
            old_k, old_v = self.store[layer_index]
            k, v = torch.cat((old_k, k), -2), torch.cat((old_v, v), -2)
        self.store[layer_index] = (k, v)
        return k, v

    @property
    def length(self):
        """The number of positions the cache holds (0 when empty)."""
        return self.store[0][0].shape[-2] if self.store.get(0) else 0

    def reset(self):
        """Forget every layer's keys and values."""
        self.store = collections.defaultdict(tuple)
