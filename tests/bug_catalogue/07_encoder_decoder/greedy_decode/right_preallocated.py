"""A preallocated (B, max_len) buffer of pad ids, filled in place and trimmed; decoder mask with padding."""
@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id, pad_id):
    batch = src.shape[0]
    src_mask = make_padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    out = torch.full((batch, max_len), pad_id, dtype=torch.long, device=src.device)
    out[:, 0] = bos_id
    alive = torch.ones(batch, dtype=torch.bool, device=src.device)
    length = 1
    for t in range(1, max_len):
        prefix = out[:, :t]
        logits = model.decode(prefix, memory, src_mask, make_decoder_mask(prefix, pad_id))
        token = torch.where(alive, logits[:, -1].argmax(-1), torch.full_like(out[:, 0], pad_id))
        out[:, t] = token
        length = t + 1
        alive = alive & (token != eos_id)
        if not bool(alive.any()):
            break
    return out[:, :length]
