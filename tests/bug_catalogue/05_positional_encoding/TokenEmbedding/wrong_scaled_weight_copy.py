"""Scales the weights once in __init__ instead of in forward: later weight changes are not scaled."""
class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        with torch.no_grad():
            self.embedding.weight.mul_(math.sqrt(d_model))

    def forward(self, tokens):
        return self.embedding(tokens)
