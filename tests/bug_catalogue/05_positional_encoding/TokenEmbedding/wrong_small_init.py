"""Re-draws the embedding with standard deviation d_model^-0.5 (the tied matrix's start in notebook 07) instead of keeping nn.Embedding's N(0, 1)."""
class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        nn.init.normal_(self.embedding.weight, std=d_model ** -0.5)
        self.scale = math.sqrt(d_model)

    def forward(self, tokens):
        return self.embedding(tokens) * self.scale
