"""Preallocates buffers with torch.zeros(..., device=k.device) but no dtype: float64 or bf16 inputs become float32."""
class KVCache:
    """Self-attention keys and values of the positions decoded so far, one (K, V) pair per decoder layer."""

    def __init__(self, capacity=512):
        self.capacity = capacity
        self.buffers = {}
        self.sizes = {}

    def update(self, layer_index, k, v):
        """Append k, v (B, h, L_new, d_k) to layer `layer_index`; return all its keys and values (B, h, L, d_k)."""
        if layer_index not in self.buffers:
            shape = (k.shape[0], k.shape[1], self.capacity, k.shape[3])
            self.buffers[layer_index] = (torch.zeros(shape, device=k.device), torch.zeros(shape, device=k.device))
            self.sizes[layer_index] = 0
        keys, values = self.buffers[layer_index]
        start, end = self.sizes[layer_index], self.sizes[layer_index] + k.shape[-2]
        keys[:, :, start:end] = k
        values[:, :, start:end] = v
        self.sizes[layer_index] = end
        return keys[:, :, :end], values[:, :, :end]

    @property
    def length(self):
        """The number of positions the cache holds (0 when empty)."""
        return self.sizes.get(0, 0)

    def reset(self):
        """Forget every layer's keys and values."""
        self.buffers.clear()
        self.sizes.clear()
