"""A while loop over Python lists of tokens, converted to a tensor at the end."""
@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id, pad_id):
    src_mask = make_padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)
    finished = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    rows = ys.tolist()
    done = finished.tolist()
    while len(rows[0]) < max_len and not all(done):
        ys = torch.tensor(rows, dtype=torch.long, device=src.device)
        causal = torch.tril(torch.ones(ys.shape[1], ys.shape[1], dtype=torch.bool, device=src.device))
        best = model.decode(ys, memory, src_mask, causal)[:, -1, :].argmax(dim=-1).tolist()
        for i, token in enumerate(best):
            rows[i].append(pad_id if done[i] else token)
            done[i] = done[i] or token == eos_id
    return torch.tensor(rows, dtype=torch.long, device=src.device)
