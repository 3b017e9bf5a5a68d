"""Keeps only the single best extension at each step, whatever beam_size says: greedy decoding."""
@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, pad_id, beam_size=4, alpha=0.6):
    src_mask = make_padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)
    finished = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    for _ in range(max_len - 1):
        logits = model.decode(ys, memory, src_mask, make_causal_mask(ys.size(1), device=src.device))
        token = torch.log_softmax(logits[:, -1], dim=-1).topk(1, dim=-1).indices[:, 0]
        token = token.masked_fill(finished, pad_id)
        ys = torch.cat([ys, token[:, None]], dim=1)
        finished |= token == eos_id
        if bool(finished.all()):
            break
    return ys
