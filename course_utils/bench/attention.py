"""The course's attention against torch's, forward + backward, as L grows.

`bench`: the course's MultiHeadAttention (notebook 03) against nn.MultiheadAttention and the
same projections around fused attention. `sdpa_backends` (GPU): notebook 02's attention
against each kernel behind F.scaled_dot_product_attention.
"""
from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F

from course_utils.course import Course
from course_utils.qa.solution_code import solution_namespace

# Sequence lengths timed, and repeats per length (the median is reported).
LENGTHS, QUICK_LENGTHS = [64, 128, 256, 512, 1024, 2048], [64, 128]
REPEATS, QUICK_REPEATS = 5, 2


class FusedMHA(torch.nn.Module):
    """The same projections as the course's layer, with torch's fused attention in the middle."""

    def __init__(self, course_mha: torch.nn.Module, num_heads: int) -> None:
        super().__init__()
        self.inner, self.h = course_mha, num_heads

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        m = self.inner
        B, L, D = x.shape
        q, k, v = (proj(x).view(B, L, self.h, D // self.h).transpose(1, 2) for proj in (m.w_q, m.w_k, m.w_v))
        out = F.scaled_dot_product_attention(q, k, v)
        return m.w_o(out.transpose(1, 2).reshape(B, L, D))


def _time(fn: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor, repeats: int) -> float:
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


def bench(course: Course, lengths: list[int], device: str = "cpu", d_model: int = 512, heads: int = 8,
          batch: int = 2, repeats: int = 5, seed: int = 0) -> list[tuple]:
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


# The fused kernels behind F.scaled_dot_product_attention, timed one at a time on a GPU.
SDPA_BACKENDS = ("FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION", "MATH")
BACKEND_LENGTHS = [256, 512, 1024, 2048, 4096, 8192]


def sdpa_backends(course: Course, lengths: list[int], device: str = "cuda", batch: int = 4, heads: int = 8,
                  d_k: int = 64, dtype: torch.dtype = torch.bfloat16, repeats: int = 10) -> list[tuple]:
    """Rows: (L, course ms, one ms column per SDPA backend), forward + backward, per length.

    "course" is notebook 02's scaled_dot_product_attention (the naive O(L^2)-memory one).
    A backend that refuses the inputs, or runs out of memory, shows "n/a".
    """
    from torch.nn.attention import SDPBackend, sdpa_kernel

    naive = solution_namespace(course, "02_scaled_dot_product_attention")["scaled_dot_product_attention"]
    rows = []
    for length in lengths:
        gen = torch.Generator().manual_seed(length)
        q, k, v = (torch.randn(batch, heads, length, d_k, generator=gen).to(device, dtype).requires_grad_()
                   for _ in range(3))
        row = [length]
        candidates = [("course", lambda: naive(q, k, v)[0], None)]
        candidates += [(name, lambda: F.scaled_dot_product_attention(q, k, v), getattr(SDPBackend, name))
                       for name in SDPA_BACKENDS]
        for _, fn, backend in candidates:
            try:
                with sdpa_kernel(backend) if backend is not None else contextlib.nullcontext():
                    row.append(round(1e3 * _time(lambda _x: fn(), q, repeats), 3))
            except (RuntimeError, torch.OutOfMemoryError):
                row.append("n/a")
            finally:
                q.grad = k.grad = v.grad = None
                if q.is_cuda:
                    torch.cuda.empty_cache()
        rows.append(tuple(row))
    return rows
