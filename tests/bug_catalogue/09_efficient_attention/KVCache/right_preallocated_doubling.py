"""Preallocated buffers (dtype and device from the inputs) that double when full; returns views."""
class KVCache:
    """Self-attention keys and values of the positions decoded so far, one (K, V) pair per decoder layer."""

    def __init__(self):
        self._k, self._v, self._n = {}, {}, {}

    def _grow(self, layer_index, like, needed):
        old_k, old_v = self._k.get(layer_index), self._v.get(layer_index)
        capacity = 0 if old_k is None else old_k.shape[-2]
        if needed <= capacity:
            return
        capacity = max(needed, 2 * capacity, 8)
        shape = like.shape[:-2] + (capacity, like.shape[-1])
        new_k = like.new_empty(shape)
        new_v = like.new_empty(shape)
        n = self._n.get(layer_index, 0)
        if n:
            new_k[..., :n, :] = old_k[..., :n, :]
            new_v[..., :n, :] = old_v[..., :n, :]
        self._k[layer_index], self._v[layer_index] = new_k, new_v

    def update(self, layer_index, k, v):
        """Append k, v (B, h, L_new, d_k) to layer `layer_index`; return all its keys and values (B, h, L, d_k)."""
        n = self._n.get(layer_index, 0)
        end = n + k.shape[-2]
        self._grow(layer_index, k, end)
        self._k[layer_index][..., n:end, :] = k
        self._v[layer_index][..., n:end, :] = v
        self._n[layer_index] = end
        return self._k[layer_index][..., :end, :], self._v[layer_index][..., :end, :]

    @property
    def length(self):
        """The number of positions the cache holds (0 when empty)."""
        return self._n.get(0, 0)

    def reset(self):
        """Forget every layer's keys and values."""
        self._k, self._v, self._n = {}, {}, {}
