"""Scales by sqrt(vocab_size) instead of sqrt(d_model)."""
class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.scale = vocab_size ** 0.5

    def forward(self, tokens):
        return self.embedding(tokens) * self.scale
