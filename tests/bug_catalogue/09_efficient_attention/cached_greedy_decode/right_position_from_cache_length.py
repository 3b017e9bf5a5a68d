"""A while loop; the position comes from the cache's length, the memory's keys and values from a dict filled lazily."""
@torch.no_grad()
def cached_greedy_decode(model, src, max_len, bos_id, eos_id, pad_id):
    """greedy_decode with a KV cache: the same tokens, one position per decoder layer per step."""
    src_mask = make_padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    cross = {}
    cache = KVCache()
    tokens = [torch.full((src.shape[0],), bos_id, dtype=torch.long, device=src.device)]
    done = torch.zeros_like(tokens[0], dtype=torch.bool)
    pe = model.positional.pe
    while len(tokens) < max_len and not bool(done.all()):
        position = cache.length                               # positions already cached = index of the new one
        x = model.tgt_embed(tokens[-1][:, None]) + pe[position:position + 1]
        x = model.positional.dropout(x)
        for i, layer in enumerate(model.decoder.layers):
            if i not in cross:
                heads = layer.cross_attn.num_heads
                cross[i] = (split_heads(layer.cross_attn.w_k(memory), heads),
                            split_heads(layer.cross_attn.w_v(memory), heads))
            x = decoder_layer_step(layer, x, i, cache, cross[i][0], cross[i][1], src_mask)
        logits = x.squeeze(1) @ model.generator.weight.T + model.generator.bias
        token = torch.where(done, torch.full_like(tokens[0], pad_id), logits.argmax(-1))
        tokens.append(token)
        done = done | (token == eos_id)
    return torch.stack(tokens, dim=1)
