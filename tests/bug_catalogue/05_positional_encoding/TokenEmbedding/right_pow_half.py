"""Scales with d_model ** 0.5 computed in forward from the embedding's own size."""
class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)

    def forward(self, tokens):
        return self.embedding(tokens) * self.embedding.embedding_dim ** 0.5
