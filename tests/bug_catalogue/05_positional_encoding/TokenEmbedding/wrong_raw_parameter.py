"""Keeps a raw weight Parameter and indexes it: there is no `embedding` attribute to tie in notebook 07."""
class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size, d_model):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(vocab_size, d_model))
        self.scale = math.sqrt(d_model)

    def forward(self, tokens):
        return self.weight[tokens] * self.scale
