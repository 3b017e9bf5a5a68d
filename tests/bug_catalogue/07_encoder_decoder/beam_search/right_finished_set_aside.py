"""One sentence at a time; a finished hypothesis leaves the beam for a list of finished ones (as in GNMT)."""
@torch.no_grad()
def beam_search(model, src, max_len, bos_id, eos_id, pad_id, beam_size=4, alpha=0.6):
    results = []
    for b in range(src.size(0)):
        one = src[b:b + 1]
        mask = make_padding_mask(one, pad_id)
        memory = model.encode(one, mask)
        beams = [([bos_id], 0.0)]
        done = []
        while beams and len(beams[0][0]) < max_len:
            ys = torch.tensor([tokens for tokens, _ in beams], dtype=torch.long, device=src.device)
            logits = model.decode(ys, memory.expand(len(beams), -1, -1), mask.expand(len(beams), -1, -1, -1),
                                  make_causal_mask(ys.size(1), device=src.device))
            log_p = torch.log_softmax(logits[:, -1].double(), dim=-1)
            candidates = []
            for (tokens, score), row in zip(beams, log_p):
                values, words = row.topk(min(beam_size, row.numel()))
                candidates += [(tokens + [int(w)], score + float(v)) for v, w in zip(values, words)]
            candidates.sort(key=lambda c: c[1], reverse=True)
            beams = []
            for tokens, score in candidates[:beam_size]:
                (done if tokens[-1] == eos_id else beams).append((tokens, score))
        done += beams

        def normalised(hypothesis):
            tokens, score = hypothesis
            return score / ((5 + len(tokens) - 1) / 6) ** alpha

        results.append(max(done, key=normalised)[0])
    width = max(len(tokens) for tokens in results)
    out = torch.full((len(results), width), pad_id, dtype=torch.long, device=src.device)
    for i, tokens in enumerate(results):
        out[i, :len(tokens)] = torch.tensor(tokens, dtype=torch.long)
    return out
