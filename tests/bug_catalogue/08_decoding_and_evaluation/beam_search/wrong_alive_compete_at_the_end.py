"""At max_len the alive hypotheses join the finished pool, ranked by log P / lp like them."""
@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, pad_id, beam_size=4, alpha=0.6):
    B, K, device = src.size(0), beam_size, src.device
    src_mask = make_padding_mask(src, pad_id)
    memory = model.encode(src, src_mask).repeat_interleave(K, dim=0)      # row b * K + k: beam k of sentence b
    beam_mask = src_mask.repeat_interleave(K, dim=0)
    alive = torch.full((B * K, 1), bos_id, dtype=torch.long, device=device)
    alive_log_p = torch.full((B, K), float("-inf"), device=device)
    alive_log_p[:, 0] = 0.0                                                 # one real hypothesis at the start
    best = torch.full((B, max_len), pad_id, dtype=torch.long, device=device)  # the best finished one so far
    best_score = torch.full((B,), float("-inf"), device=device)
    sentences = torch.arange(B, device=device)
    for t in range(1, max_len):                                            # t = |Y| of the new hypotheses
        logits = model.decode(alive, memory, beam_mask, make_causal_mask(t, device=device))[:, -1]
        log_p = (alive_log_p.reshape(-1, 1) + logits.float().log_softmax(-1)).reshape(B, -1)   # (B, K * V)
        V = log_p.size(1) // K
        top, index = log_p.topk(K, dim=1)                                  # what a plain beam would keep
        score, pick = torch.where(index % V == eos_id, top / ((5 + t) / 6) ** alpha, float("-inf")).max(1)
        ended = torch.cat([alive[sentences * K + index[sentences, pick] // V],
                           torch.full((B, 1), eos_id, device=device)], 1)
        better = score > best_score
        best[better, :t + 1], best_score = ended[better], torch.maximum(best_score, score)
        log_p[:, eos_id::V] = float("-inf")                               # alive: the K best that go on
        alive_log_p, index = log_p.topk(K, dim=1)
        alive = torch.cat([alive[(sentences[:, None] * K + index // V).reshape(-1)], (index % V).reshape(-1, 1)], 1)
        if bool((best_score > alive_log_p[:, 0] / ((5 + max_len - 1) / 6) ** alpha).all()):
            break
    alive_score = alive_log_p[:, 0] / ((5 + alive.size(1) - 1) / 6) ** alpha
    none = alive_score > best_score                      # an alive hypothesis scores better: take it
    best[none, :alive.size(1)] = alive[sentences[none] * K]
    return best[:, :int((best != pad_id).sum(1).max())]
