"""The slot ranking of 07's first edition: finished beams keep their slot and compete on raw log P."""
@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, pad_id, beam_size=4, alpha=0.6):
    B, K = src.size(0), beam_size
    memory, beam_mask, ys, scores = start_beams(model, src, pad_id, bos_id, K)
    done = torch.zeros(B * K, dtype=torch.bool, device=src.device)
    for t in range(1, max_len):
        logits = model.decode(ys, memory, beam_mask, make_causal_mask(t, device=src.device))
        log_p = torch.log_softmax(logits[:, -1].float(), dim=-1)                 # (B*K, V)
        V = log_p.size(-1)
        log_p[done] = float("-inf")                      # a finished beam goes on with <pad>, at no cost:
        log_p[done, pad_id] = 0.0                        # it keeps its slot with its raw log P
        scores, index = (scores.reshape(B * K, 1) + log_p).reshape(B, K * V).topk(K, dim=-1)
        done = done[(torch.arange(B, device=src.device)[:, None] * K + index // V).reshape(-1)]
        ys = extend(ys, index, V)
        done = done | (ys[:, -1] == eos_id)
        if bool(done.all()):                             # stops when all K slots hold finished beams
            break
    lengths = (ys[:, 1:] != pad_id).sum(dim=1).clamp_min(1).float()             # |Y|, <eos> included
    ranked = scores.reshape(-1) / ((5 + lengths) / 6) ** alpha                 # the length penalty, at the end only
    out = ys[ranked.reshape(B, K).argmax(dim=-1) + torch.arange(B, device=src.device) * K]
    return out[:, :max(int((out != pad_id).sum(dim=1).max()), 1)]
