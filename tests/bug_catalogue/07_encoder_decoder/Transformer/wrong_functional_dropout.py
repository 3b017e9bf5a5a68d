"""Dropout on the embeddings with F.dropout(x, p), whose training=True default keeps dropping after model.eval()."""
class Transformer(nn.Module):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, num_layers=6,
                 d_ff=2048, dropout=0.1, max_len=5000):
        super().__init__()
        self.p = dropout
        self.src_embed = TokenEmbedding(src_vocab_size, d_model)
        self.tgt_embed = TokenEmbedding(tgt_vocab_size, d_model)
        self.positional = PositionalEncoding(d_model, max_len, 0.0)
        self.encoder = Encoder(lambda: EncoderLayer(d_model, num_heads, d_ff, dropout), num_layers)
        self.decoder = Decoder(lambda: DecoderLayer(d_model, num_heads, d_ff, dropout), num_layers)
        self.generator = nn.Linear(d_model, tgt_vocab_size)
        self.generator.weight = self.tgt_embed.embedding.weight

    def encode(self, src, src_mask=None):
        return self.encoder(F.dropout(self.positional(self.src_embed(src)), self.p), src_mask)

    def decode(self, tgt, memory, src_mask=None, tgt_mask=None):
        x = F.dropout(self.positional(self.tgt_embed(tgt)), self.p)
        return self.generator(self.decoder(x, memory, src_mask, tgt_mask))

    def forward(self, src, tgt, src_mask=None, tgt_mask=None):
        return self.decode(tgt, self.encode(src, src_mask), src_mask, tgt_mask)
