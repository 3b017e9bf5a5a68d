"""Divides by sqrt(d_model) instead of multiplying (the attention-score scale, misplaced)."""
class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, tokens):
        return self.embedding(tokens) / math.sqrt(self.d_model)
