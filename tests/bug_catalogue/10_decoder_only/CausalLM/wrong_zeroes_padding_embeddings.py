"""Sets the padding positions' input to zero vectors (as nn.Embedding's padding_idx would) instead of embedding + position 0."""
class CausalLM(nn.Module):
    """A decoder-only Transformer: embeddings and learned positions, encoder layers under a causal mask, tied output."""

    def __init__(self, vocab_size, d_model, num_heads, num_layers, d_ff, dropout=0.1, max_len=512, pad_id=0):
        super().__init__()
        self.pad_id, self.max_len = pad_id, max_len
        self.token_embed = TokenEmbedding(vocab_size, d_model)        # embedding(tokens) * sqrt(d_model)
        self.position_embed = nn.Embedding(max_len, d_model)         # one learned vector per position
        self.dropout = nn.Dropout(dropout)
        self.layers = nn.ModuleList([EncoderLayer(d_model, num_heads, d_ff, dropout) for _ in range(num_layers)])
        self.output = nn.Linear(d_model, vocab_size, bias=False)
        for name, p in self.named_parameters():                      # notebook 07's initialisation
            if p.dim() > 1 and "embed" not in name:
                nn.init.xavier_uniform_(p)
        nn.init.normal_(self.token_embed.embedding.weight, std=d_model ** -0.5)
        self.output.weight = self.token_embed.embedding.weight       # tied: one matrix (paper 3.4)

    def forward(self, tokens):
        """(B, L) token ids, padding on the left -> logits (B, L, vocab_size); position t sees tokens <= t."""
        real = tokens != self.pad_id
        positions = (real.long().cumsum(dim=1) - 1).clamp(min=0)
        x = self.token_embed(tokens) + self.position_embed(positions)
        x = self.dropout(x * real.unsqueeze(-1))
        mask = make_decoder_mask(tokens, self.pad_id)
        for layer in self.layers:
            x = layer(x, mask)
        return self.output(x)
