"""Removes the @torch.no_grad() line: every decoding step builds a gradient graph that is never used."""
def greedy_decode(model, src, max_len, bos_id, eos_id, pad_id):
    src_mask = make_padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)
    finished = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    while ys.size(1) < max_len and not finished.all():
        logits = model.decode(ys, memory, src_mask, make_causal_mask(ys.size(1), device=src.device))
        next_token = logits[:, -1].argmax(dim=-1).masked_fill(finished, pad_id)
        ys = torch.cat([ys, next_token[:, None]], dim=1)
        finished |= next_token == eos_id
    return ys
