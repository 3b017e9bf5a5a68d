"""The slot ranking of 07's first edition: finished beams keep their slot and compete on raw log P."""
@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, pad_id, beam_size=4, alpha=0.6):
    B, K, device = src.size(0), beam_size, src.device
    src_mask = make_padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    memory, beam_mask = memory.repeat_interleave(K, dim=0), src_mask.repeat_interleave(K, dim=0)  # (B*K, ...)
    ys = torch.full((B * K, 1), bos_id, dtype=torch.long, device=device)
    scores = torch.full((B, K), float("-inf"), device=device)
    scores[:, 0] = 0.0                                   # at the start, one real beam per sentence
    finished = torch.zeros(B * K, dtype=torch.bool, device=device)
    for _ in range(max_len - 1):
        logits = model.decode(ys, memory, beam_mask, make_causal_mask(ys.size(1), device=device))
        log_p = torch.log_softmax(logits[:, -1].float(), dim=-1)                 # (B*K, V)
        V = log_p.size(-1)
        log_p[finished] = float("-inf")                  # a finished beam goes on with <pad>, at no cost:
        log_p[finished, pad_id] = 0.0                    # it keeps its slot with its raw log P
        candidates = (scores.reshape(B * K, 1) + log_p).reshape(B, K * V)
        scores, index = candidates.topk(K, dim=-1)                                 # (B, K)
        rows = (torch.arange(B, device=device)[:, None] * K + index // V).reshape(-1)
        tokens = (index % V).reshape(-1, 1)
        ys = torch.cat([ys[rows], tokens], dim=1)
        finished = finished[rows] | (tokens[:, 0] == eos_id)
        if bool(finished.all()):                         # stops when all K slots hold finished beams
            break
    lengths = (ys[:, 1:] != pad_id).sum(dim=1).clamp_min(1).float()             # |Y|, <eos> included
    ranked = scores.reshape(-1) / ((5 + lengths) / 6) ** alpha                 # the length penalty, at the end only
    best = ranked.reshape(B, K).argmax(dim=-1) + torch.arange(B, device=device) * K
    out = ys[best]
    keep = int((out != pad_id).sum(dim=1).max())
    return out[:, :max(keep, 1)]
