"""Calls model(src, ys, src_mask, tgt_mask) at every step (re-encodes the source: slower, same result)."""
import sys


@torch.no_grad()
def greedy_decode(model, src, max_len, bos_id, eos_id, pad_id):
    src_mask = make_padding_mask(src, pad_id)
    memory = model.encode(src, src_mask)
    ys = torch.full((src.size(0), 1), bos_id, dtype=torch.long, device=src.device)
    finished = torch.zeros(src.size(0), dtype=torch.bool, device=src.device)
    for step in range(1, max_len):
        logits = model(src, ys, src_mask, make_causal_mask(step, device=src.device))
        next_token = torch.argmax(logits[:, -1, :], dim=-1)
        next_token[finished] = pad_id
        ys = torch.cat((ys, next_token.unsqueeze(1)), dim=1)
        finished = finished | (next_token == eos_id)
        if finished.all():
            print(f"all finished after {step} steps", file=sys.stderr)
            break
    return ys
