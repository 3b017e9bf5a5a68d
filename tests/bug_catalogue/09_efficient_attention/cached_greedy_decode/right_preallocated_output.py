"""Preallocates the (B, max_len) output filled with pad_id and cuts it at the last step taken."""
@torch.no_grad()
def cached_greedy_decode(model, src, max_len, bos_id, eos_id, pad_id):
    """greedy_decode with a KV cache: the same tokens, one position per decoder layer per step."""
    B = src.size(0)
    src_mask = make_padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    kv = []
    for layer in model.decoder.layers:
        h = layer.cross_attn.num_heads
        kv.append((split_heads(layer.cross_attn.w_k(memory), h), split_heads(layer.cross_attn.w_v(memory), h)))
    cache = KVCache()
    out = torch.full((B, max_len), pad_id, dtype=torch.long, device=src.device)
    out[:, 0] = bos_id
    alive = torch.ones(B, dtype=torch.bool, device=src.device)
    length = 1
    for t in range(max_len - 1):
        x = model.tgt_embed(out[:, t:t + 1])
        x = model.positional.dropout(x + model.positional.pe[t:t + 1].unsqueeze(0))
        for index, (layer, (mk, mv)) in enumerate(zip(model.decoder.layers, kv)):
            x = decoder_layer_step(layer, x, index, cache, mk, mv, src_mask)
        best = model.generator(x).argmax(-1).squeeze(1)
        out[:, t + 1] = torch.where(alive, best, torch.full_like(best, pad_id))
        alive = alive & (best != eos_id)
        length = t + 2
        if not bool(alive.any()):
            break
    return out[:, :length]
