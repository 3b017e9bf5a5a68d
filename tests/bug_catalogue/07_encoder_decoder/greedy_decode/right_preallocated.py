"""A preallocated (B, max_len) buffer of pad ids, filled in place and trimmed; decoder mask with padding."""
@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id, pad_id):
    src_mask = make_padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)
    finished = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    out = torch.full((src.size(0), max_len), pad_id, dtype=torch.long, device=src.device)
    out[:, :1] = ys
    length = 1
    for t in range(1, max_len):
        prefix = out[:, :t]
        logits = model.decode(prefix, memory, src_mask, make_decoder_mask(prefix, pad_id))
        token = torch.where(finished, torch.full_like(out[:, 0], pad_id), logits[:, -1].argmax(-1))
        out[:, t] = token
        length = t + 1
        finished = finished | (token == eos_id)
        if bool(finished.all()):
            break
    return out[:, :length]
