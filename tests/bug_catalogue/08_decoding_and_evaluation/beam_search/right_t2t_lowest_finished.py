"""tensor2tensor's stopping rule for a finished pool of K (stop_early=False): stop when the LOWEST finished score of
the whole batch beats every sentence's bound. It stops later than the paper's rule, and returns the same tokens."""
@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, pad_id, beam_size=4, alpha=0.6):
    B, K, dev = src.shape[0], beam_size, src.device
    NEG = -1e9
    src_mask = make_padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    mem_k = memory[:, None].expand(B, K, *memory.shape[1:]).reshape(B * K, *memory.shape[1:])
    mask_k = src_mask[:, None].expand(B, K, *src_mask.shape[1:]).reshape(B * K, *src_mask.shape[1:])
    seqs = torch.full((B, K, 1), bos_id, dtype=torch.long, device=dev)
    logp = torch.tensor([0.0] + [NEG] * (K - 1), device=dev).repeat(B, 1)
    fin_seqs = torch.full((B, K, max_len), pad_id, dtype=torch.long, device=dev)
    fin_scores = torch.full((B, K), NEG, device=dev)
    for t in range(1, max_len):
        out = model.decode(seqs.reshape(B * K, t), mem_k, mask_k, make_causal_mask(t, device=dev))
        step = out[:, -1].log_softmax(-1).reshape(B, K, -1)
        V = step.shape[-1]
        total = (logp[..., None] + step).reshape(B, K * V)
        values, flat = total.topk(K, dim=1)
        parent, word = flat // V, flat % V
        grown = torch.cat([seqs.gather(1, parent[..., None].expand(-1, -1, t)), word[..., None]], -1)
        new_scores = torch.where(word == eos_id, values / ((5.0 + t) / 6.0) ** alpha, torch.full_like(values, NEG))
        grown = torch.cat([grown, torch.full((B, K, max_len - t - 1), pad_id, dtype=torch.long, device=dev)], -1)
        pool_scores = torch.cat([fin_scores, new_scores], 1)
        pool_seqs = torch.cat([fin_seqs, grown], 1)
        fin_scores, keep = pool_scores.topk(K, dim=1)
        fin_seqs = pool_seqs.gather(1, keep[..., None].expand(-1, -1, max_len))
        total[:, eos_id::V] = NEG
        logp, flat = total.topk(K, dim=1)
        seqs = torch.cat([seqs.gather(1, (flat // V)[..., None].expand(-1, -1, t)), (flat % V)[..., None]], -1)
        lower_bound = logp[:, 0] / ((5.0 + max_len - 1) / 6.0) ** alpha
        lowest_finished = fin_scores.min()          # NEG until every sentence has K finished hypotheses
        if (lowest_finished > lower_bound).all():
            break
    has_finished = fin_scores[:, 0] > NEG / 2
    alive_best = torch.cat([seqs[:, 0], torch.full((B, max_len - seqs.shape[-1]), pad_id, dtype=torch.long,
                                                   device=dev)], -1)
    chosen = torch.where(has_finished[:, None], fin_seqs[:, 0], alive_best)
    width = int((chosen != pad_id).sum(1).max())
    return chosen[:, :width]
