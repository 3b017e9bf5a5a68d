"""Beams as a (B, K, T) tensor, extended with gather; the final choice with torch.where on finished beams."""
@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, pad_id, beam_size=4, alpha=0.6):
    B, K = src.shape[0], beam_size
    src_mask = make_padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    memory_k = memory.unsqueeze(1).expand(B, K, *memory.shape[1:]).reshape(B * K, *memory.shape[1:])
    mask_k = src_mask.unsqueeze(1).expand(B, K, *src_mask.shape[1:]).reshape(B * K, *src_mask.shape[1:])
    seqs = torch.full((B, K, 1), bos_id, dtype=torch.long, device=src.device)
    logp = torch.zeros(B, K, device=src.device)
    logp[:, 1:] = -float("inf")
    done = torch.zeros(B, K, dtype=torch.bool, device=src.device)
    for _ in range(max_len - 1):
        flat = seqs.reshape(B * K, -1)
        step = model.decode(flat, memory_k, mask_k, make_causal_mask(flat.shape[1], device=src.device))[:, -1]
        step = step.log_softmax(-1).reshape(B, K, -1)
        V = step.shape[-1]
        frozen = torch.full_like(step, -float("inf"))
        frozen[..., pad_id] = 0.0
        step = torch.where(done.unsqueeze(-1), frozen, step)
        total = (logp.unsqueeze(-1) + step).reshape(B, K * V)
        logp, pick = total.topk(K, dim=1)
        parent, word = pick // V, pick % V
        seqs = torch.cat([seqs.gather(1, parent.unsqueeze(-1).expand(-1, -1, seqs.shape[-1])), word.unsqueeze(-1)], -1)
        done = done.gather(1, parent) | (word == eos_id)
        if done.all():
            break
    length = (seqs[..., 1:] != pad_id).sum(-1).float()
    choice = (logp / ((5.0 + length) / 6.0).pow(alpha)).argmax(dim=1)
    best = seqs[torch.arange(B, device=src.device), choice]
    used = int((best != pad_id).sum(1).max())
    return best[:, :used]
