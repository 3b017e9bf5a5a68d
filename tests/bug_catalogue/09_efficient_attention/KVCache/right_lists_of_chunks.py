"""Keeps a list of chunks per layer (lists indexed by layer) and concatenates them on every update."""
class KVCache:
    """Self-attention keys and values of the positions decoded so far, one (K, V) pair per decoder layer."""

    def __init__(self):
        self.reset()

    def update(self, layer_index, k, v):
        """Append k, v (B, h, L_new, d_k) to layer `layer_index`; return all its keys and values (B, h, L, d_k)."""
        if layer_index == len(self.k_chunks):     # layers arrive in order 0, 1, 2, ...
            self.k_chunks.append([])
            self.v_chunks.append([])
        self.k_chunks[layer_index].append(k)
        self.v_chunks[layer_index].append(v)
        return torch.cat(self.k_chunks[layer_index], dim=2), torch.cat(self.v_chunks[layer_index], dim=2)

    @property
    def length(self):
        """The number of positions the cache holds (0 when empty)."""
        if not self.k_chunks:
            return 0
        return sum(chunk.size(2) for chunk in self.k_chunks[0])

    def reset(self):
        """Forget every layer's keys and values."""
        self.k_chunks = []
        self.v_chunks = []
