"""One topk over the whole batch's candidates: one sentence's likely words take another sentence's beams."""
@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, pad_id, beam_size=4, alpha=0.6):
    B, K, device = src.size(0), beam_size, src.device
    src_mask = make_padding_mask(src, pad_id)
    memory = model.encode(src, src_mask).repeat_interleave(K, dim=0)
    beam_mask = src_mask.repeat_interleave(K, dim=0)
    alive = torch.full((B * K, 1), bos_id, dtype=torch.long, device=device)
    alive_log_p = torch.full((B * K,), float("-inf"), device=device)
    alive_log_p[::K] = 0.0
    best = torch.full((B, max_len), pad_id, dtype=torch.long, device=device)
    best_score = torch.full((B,), float("-inf"), device=device)
    lp = lambda n: ((5 + n) / 6) ** alpha
    for t in range(1, max_len):
        logits = model.decode(alive, memory, beam_mask, make_causal_mask(t, device=device))[:, -1]
        log_p = alive_log_p[:, None] + logits.float().log_softmax(-1)            # (B*K, V)
        V = log_p.size(1)
        top, index = log_p.reshape(-1).topk(B * K)                             # the batch's best candidates
        rows, words = index // V, index % V
        for score, row, word in zip(top.tolist(), rows.tolist(), words.tolist()):
            sentence = row // K
            if word == eos_id and score / lp(t) > best_score[sentence]:
                best_score[sentence] = score / lp(t)
                best[sentence] = pad_id
                best[sentence, :t] = alive[row]
                best[sentence, t] = eos_id
        log_p[:, eos_id] = float("-inf")
        alive_log_p, index = log_p.reshape(-1).topk(B * K)
        alive = torch.cat([alive[index // V], (index % V)[:, None]], 1)
        memory, beam_mask = memory[index // V], beam_mask[index // V]
        best_alive = torch.full((B,), float("-inf"), device=device)
        for row in range(B * K):
            sentence = int(alive[row, 0] * 0) + row // K
            best_alive[sentence] = max(best_alive[sentence], alive_log_p[row])
        if bool((best_score > best_alive / lp(max_len - 1)).all()):
            break
    for sentence in range(B):
        if best_score[sentence] == float("-inf"):
            best[sentence, :alive.size(1)] = alive[sentence * K]
    return best[:, :int((best != pad_id).sum(1).max())]
