"""The output projection keeps its own weight matrix: not tied to the target embedding."""
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

    def encode(self, src, src_mask=None):
        return self.encoder(self.positional(self.src_embed(src)), src_mask)

    def decode(self, tgt, memory, src_mask=None, tgt_mask=None):
        return self.generator(self.decoder(self.positional(self.tgt_embed(tgt)), memory, src_mask, tgt_mask))

    def forward(self, src, tgt, src_mask=None, tgt_mask=None):
        return self.decode(tgt, self.encode(src, src_mask), src_mask, tgt_mask)
