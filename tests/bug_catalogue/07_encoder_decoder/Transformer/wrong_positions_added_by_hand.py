"""Adds the positional table by hand (x + positional.pe[:L]) and so skips the dropout on the sum of embeddings and positions."""
class Transformer(nn.Module):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, num_layers=6,
                 d_ff=2048, dropout=0.1, max_len=5000):
        super().__init__()
        self.src_embed = TokenEmbedding(src_vocab_size, d_model)
        self.tgt_embed = TokenEmbedding(tgt_vocab_size, d_model)
        self.positional = PositionalEncoding(d_model, max_len, dropout)
        self.encoder = Encoder(lambda: EncoderLayer(d_model, num_heads, d_ff, dropout), num_layers)
        self.decoder = Decoder(lambda: DecoderLayer(d_model, num_heads, d_ff, dropout), num_layers)
        self.generator = nn.Linear(d_model, tgt_vocab_size)
        for name, p in self.named_parameters():
            if p.dim() > 1 and not name.endswith("embedding.weight"):
                nn.init.xavier_uniform_(p)
        for embed in (self.src_embed, self.tgt_embed):   # notebook 05's small init of a tied matrix
            nn.init.normal_(embed.embedding.weight, std=d_model ** -0.5)
        self.generator.weight = self.tgt_embed.embedding.weight

    def _with_positions(self, x):
        return x + self.positional.pe[:x.size(1)]

    def encode(self, src, src_mask=None):
        return self.encoder(self._with_positions(self.src_embed(src)), src_mask)

    def decode(self, tgt, memory, src_mask=None, tgt_mask=None):
        hidden = self.decoder(self._with_positions(self.tgt_embed(tgt)), memory, src_mask, tgt_mask)
        return self.generator(hidden)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None):
        return self.decode(tgt, self.encode(src, src_mask), src_mask, tgt_mask)
