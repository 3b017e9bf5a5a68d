"""No separate output layer: logits = hidden @ embedding weight^T (tied by construction), separate PE modules."""
import torch.nn.functional as F


class Transformer(nn.Module):
    def __init__(self, src_vocab_size, tgt_vocab_size, d_model=512, num_heads=8, num_layers=6,
                 d_ff=2048, dropout=0.1, max_len=5000):
        super().__init__()
        self.src_embed = TokenEmbedding(src_vocab_size, d_model)
        self.tgt_embed = TokenEmbedding(tgt_vocab_size, d_model)
        self.src_positional = PositionalEncoding(d_model, max_len, dropout)
        self.tgt_positional = PositionalEncoding(d_model, max_len, dropout)
        self.encoder = Encoder(lambda: EncoderLayer(d_model, num_heads, d_ff, dropout), num_layers)
        self.decoder = Decoder(lambda: DecoderLayer(d_model, num_heads, d_ff, dropout), num_layers)

    def encode(self, src, src_mask=None):
        return self.encoder(self.src_positional(self.src_embed(src)), src_mask=src_mask)

    def decode(self, tgt, memory, src_mask=None, tgt_mask=None):
        hidden = self.decoder(self.tgt_positional(self.tgt_embed(tgt)), memory, src_mask=src_mask, tgt_mask=tgt_mask)
        return F.linear(hidden, self.tgt_embed.embedding.weight)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None):
        memory = self.encode(src, src_mask)
        return self.decode(tgt, memory, src_mask, tgt_mask)
