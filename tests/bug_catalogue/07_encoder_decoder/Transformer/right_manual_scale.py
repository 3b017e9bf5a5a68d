"""nn.Embedding scaled by math.sqrt(d_model) by hand, tied the other way round, default init."""
class Transformer(nn.Module):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, num_layers=6,
                 d_ff=2048, dropout=0.1, max_len=5000):
        super().__init__()
        self.d_model = d_model
        self.generator = nn.Linear(d_model, tgt_vocab_size, bias=False)
        self.src_embed = nn.Embedding(src_vocab_size, d_model)
        self.tgt_embed = nn.Embedding(tgt_vocab_size, d_model)
        self.tgt_embed.weight = self.generator.weight
        self.positional = PositionalEncoding(d_model, max_len, dropout)
        self.encoder = Encoder(lambda: EncoderLayer(d_model, num_heads, d_ff, dropout), num_layers)
        self.decoder = Decoder(lambda: DecoderLayer(d_model, num_heads, d_ff, dropout), num_layers)

    def encode(self, src, src_mask=None):
        x = self.src_embed(src) * math.sqrt(self.d_model)
        return self.encoder(self.positional(x), src_mask)

    def decode(self, tgt, memory, src_mask=None, tgt_mask=None):
        y = self.tgt_embed(tgt) * math.sqrt(self.d_model)
        return self.generator(self.decoder(self.positional(y), memory, src_mask, tgt_mask))

    def forward(self, src, tgt, src_mask=None, tgt_mask=None):
        return self.decode(tgt, self.encode(src, src_mask), src_mask, tgt_mask)
