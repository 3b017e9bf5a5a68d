"""Looks the rows up with F.embedding on self.embedding.weight and a tensor-valued sqrt."""
class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.d_model = d_model

    def forward(self, tokens):
        scale = torch.sqrt(torch.tensor(float(self.d_model)))
        return F.embedding(tokens, self.embedding.weight) * scale
