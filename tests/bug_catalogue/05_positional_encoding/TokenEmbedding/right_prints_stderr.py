"""A correct embedding (math.sqrt, multiplied before the lookup) that prints to stderr."""
import sys

class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.scale = math.sqrt(d_model)
        print(f"TokenEmbedding({vocab_size}, {d_model})", file=sys.stderr)

    def forward(self, tokens):
        return (self.embedding.weight * self.scale)[tokens]
