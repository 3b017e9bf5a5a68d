"""The stopping bound leaves the length penalty out: the best finished score is compared with the best alive log P itself."""
@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, pad_id, beam_size=4, alpha=0.6):
    B, K = src.size(0), beam_size
    memory, beam_mask, alive, alive_log_p = start_beams(model, src, pad_id, bos_id, K)
    finished = FinishedPool(B, max_len, pad_id, src.device)
    for t in range(1, max_len):                                            # t = |Y| of the new hypotheses
        logits = model.decode(alive, memory, beam_mask, make_causal_mask(t, device=src.device))[:, -1]
        log_p = (alive_log_p.reshape(-1, 1) + logits.float().log_softmax(-1)).reshape(B, -1)   # (B, K * V)
        V = log_p.size(1) // K
        top, index = log_p.topk(K, dim=1)                                  # what a plain beam would keep
        score = torch.where(index % V == eos_id, top / ((5 + t) / 6) ** alpha, float("-inf"))  # those that end
        finished.add(extend(alive, index, V), score)
        log_p[:, eos_id::V] = float("-inf")                               # alive: the K best that go on
        alive_log_p, index = log_p.topk(K, dim=1)
        alive = extend(alive, index, V)
        if bool((finished.score > alive_log_p[:, 0]).all()):
            break
    none = finished.score == float("-inf")                                # nothing finished: the best alive
    finished.tokens[none, :alive.size(1)] = alive[::K][none]
    return finished.tokens[:, :int((finished.tokens != pad_id).sum(1).max())]
