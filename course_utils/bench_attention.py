"""The course's MultiHeadAttention against torch's, forward + backward, as L grows."""
import time

import torch
import torch.nn.functional as F

from course_utils.course import Course
from course_utils.solution_code import solution_namespace


# Sequence lengths timed, and repeats per length (the median is reported).
LENGTHS, QUICK_LENGTHS = [64, 128, 256, 512, 1024, 2048], [64, 128]
REPEATS, QUICK_REPEATS = 5, 2


class FusedMHA(torch.nn.Module):
    """The same projections as the course's layer, with torch's fused attention in the middle."""

    def __init__(self, course_mha, num_heads):
        super().__init__()
        self.inner, self.h = course_mha, num_heads

    def forward(self, x):
        m = self.inner
        B, L, D = x.shape
        q, k, v = (proj(x).view(B, L, self.h, D // self.h).transpose(1, 2) for proj in (m.w_q, m.w_k, m.w_v))
        out = F.scaled_dot_product_attention(q, k, v)
        return m.w_o(out.transpose(1, 2).reshape(B, L, D))


def _time(fn, x, repeats):
    fn(x).sum().backward()  # warm-up (allocations, kernels)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(x).sum().backward()
        if x.is_cuda:
            torch.cuda.synchronize()
        samples.append(time.perf_counter() - start)
    samples.sort()
    return samples[len(samples) // 2]


def bench(course: Course, lengths, device="cpu", d_model=512, heads=8, batch=2, repeats=5, seed=0):
    """Rows: (device, L, course ms, nn.MultiheadAttention ms, fused ms, course/nn, course/fused)."""
    MultiHeadAttention = solution_namespace(course, "03_multi_head_attention")["MultiHeadAttention"]
    torch.manual_seed(seed)
    ours = MultiHeadAttention(d_model, heads).to(device)
    theirs = torch.nn.MultiheadAttention(d_model, heads, batch_first=True).to(device)
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.w_q.weight, ours.w_k.weight, ours.w_v.weight]))
        theirs.in_proj_bias.copy_(torch.cat([ours.w_q.bias, ours.w_k.bias, ours.w_v.bias]))
        theirs.out_proj.weight.copy_(ours.w_o.weight)
        theirs.out_proj.bias.copy_(ours.w_o.bias)
    fused = FusedMHA(ours, heads)
    rows = []
    for length in lengths:
        x = torch.randn(batch, length, d_model, device=device, requires_grad=True)
        a = _time(lambda t: ours(t, t, t), x, repeats)
        b = _time(lambda t: theirs(t, t, t, need_weights=False)[0], x, repeats)
        c = _time(fused, x, repeats)
        rows.append((device, length, round(1e3 * a, 2), round(1e3 * b, 2), round(1e3 * c, 2),
                     round(a / b, 2), round(a / c, 2)))
    return rows
