"""Calls model.eval() inside to switch dropout off, and leaves the caller's model in eval mode."""
@torch.no_grad()
def cached_greedy_decode(model, src, max_len, bos_id, eos_id, pad_id):
    """greedy_decode with a KV cache: the same tokens, one position per decoder layer per step."""
    model.eval()                     # dropout off while decoding
    src_mask = make_padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    layers = model.decoder.layers
    memory_k = [split_heads(layer.cross_attn.w_k(memory), layer.cross_attn.num_heads) for layer in layers]
    memory_v = [split_heads(layer.cross_attn.w_v(memory), layer.cross_attn.num_heads) for layer in layers]
    cache = KVCache()
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)
    finished = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    for t in range(max_len - 1):
        x = model.positional.dropout(model.tgt_embed(ys[:, -1:]) + model.positional.pe[t])
        for i, layer in enumerate(layers):
            x = decoder_layer_step(layer, x, i, cache, memory_k[i], memory_v[i], src_mask)
        next_token = model.generator(x[:, -1]).argmax(dim=-1)
        next_token = next_token.masked_fill(finished, pad_id)
        ys = torch.cat([ys, next_token[:, None]], dim=1)
        finished |= next_token == eos_id
        if bool(finished.all()):
            break
    return ys
