"""No masks: encode(src) and decode(ys, memory), so beams attend to source padding and to later words."""
@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, pad_id, beam_size=4, alpha=0.6):
    B, K = src.size(0), beam_size
    memory = model.encode(src).repeat_interleave(K, dim=0)
    ys = torch.full((B * K, 1), bos_id, dtype=torch.long, device=src.device)
    scores = torch.full((B, K), float("-inf"), device=src.device)
    scores[:, 0] = 0.0
    finished = torch.zeros(B * K, dtype=torch.bool, device=src.device)
    for _ in range(max_len - 1):
        log_p = torch.log_softmax(model.decode(ys, memory)[:, -1].float(), dim=-1)
        V = log_p.size(-1)
        log_p[finished] = float("-inf")
        log_p[finished, pad_id] = 0.0
        scores, index = (scores.reshape(B * K, 1) + log_p).reshape(B, K * V).topk(K, dim=-1)
        rows = (torch.arange(B, device=src.device)[:, None] * K + index // V).reshape(-1)
        tokens = (index % V).reshape(-1, 1)
        ys = torch.cat([ys[rows], tokens], dim=1)
        finished = finished[rows] | (tokens[:, 0] == eos_id)
        if bool(finished.all()):
            break
    lengths = (ys[:, 1:] != pad_id).sum(dim=1).clamp_min(1).float()
    best = (scores.reshape(-1) / ((5 + lengths) / 6) ** alpha).reshape(B, K).argmax(dim=-1)
    out = ys[best + torch.arange(B, device=src.device) * K]
    return out[:, :max(int((out != pad_id).sum(dim=1).max()), 1)]
