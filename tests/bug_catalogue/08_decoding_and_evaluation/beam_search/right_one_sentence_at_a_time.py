"""One sentence at a time, hypotheses as Python lists; the alive ones of a sentence decoded together."""
@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, pad_id, beam_size=4, alpha=0.6):
    def lp(length):
        return ((5 + length) / 6) ** alpha

    results = []
    for i in range(src.size(0)):
        one = src[i:i + 1]
        mask = make_padding_mask(one, pad_id)
        memory = model.encode(one, mask)
        alive, finished = [([bos_id], 0.0)], []
        for t in range(1, max_len):
            ys = torch.tensor([tokens for tokens, _ in alive], dtype=torch.long, device=src.device)
            n = len(alive)
            logits = model.decode(ys, memory.expand(n, *memory.shape[1:]), mask.expand(n, -1, -1, -1),
                                  make_causal_mask(t, device=src.device))
            log_p = torch.log_softmax(logits[:, -1].double(), dim=-1).tolist()
            candidates = sorted(((tokens + [w], score + lw) for (tokens, score), row in zip(alive, log_p)
                                 for w, lw in enumerate(row)), key=lambda c: -c[1])
            finished += [(tokens, score / lp(t)) for tokens, score in candidates[:beam_size] if tokens[-1] == eos_id]
            alive = [c for c in candidates if c[0][-1] != eos_id][:beam_size]
            if finished and max(s for _, s in finished) > alive[0][1] / lp(max_len - 1):
                break
        results.append(max(finished, key=lambda f: f[1])[0] if finished else alive[0][0])
    out = torch.full((len(results), max(map(len, results))), pad_id, dtype=torch.long, device=src.device)
    for i, tokens in enumerate(results):
        out[i, :len(tokens)] = torch.tensor(tokens, device=src.device)
    return out
