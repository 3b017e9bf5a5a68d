"""`course bench mfu`: the paper's base model, built from the course's own modules, against nn.Transformer.

For instructors with a GPU: how close does the model students assemble in notebook 07 come
to PyTorch's own `nn.Transformer` in a real training step, and what fraction of the chip's
bf16 peak (MFU, model FLOPs utilisation) does either reach? Both models are the paper's base
configuration (Table 3: d_model 512, 6 + 6 layers, 8 heads, d_ff 2048, dropout 0.1), with one
37,000-token vocabulary shared by the source and target embeddings and the output layer
(section 3.4), trained in bf16 autocast with fused attention (`F.scaled_dot_product_attention`).

The course's model is the solution of notebook 07 with one change: each MultiHeadAttention
runs torch's fused attention in place of the notebook's naive one (same weights, same
masks, dropout on the weights as in the course's layer). Everything else, the hand-written
LayerNorm included, is the course's code.
"""
from __future__ import annotations

import math
import time
import types
from dataclasses import dataclass, field

import torch
import torch.nn as nn
import torch.nn.functional as F

from course_utils.course import Course
from course_utils.qa.solution_code import solution_namespace


@dataclass(frozen=True)
class ModelShape:
    """Sizes of an encoder-decoder Transformer and of one training batch."""
    d_model: int = 512
    num_heads: int = 8
    num_layers: int = 6
    d_ff: int = 2048
    vocab: int = 37_000        # the paper's shared BPE vocabulary (section 5.1)
    dropout: float = 0.1
    batch: int = 192           # 192 x 128 = 24,576 tokens a side: the paper's ~25,000 (section 5.1)
    src_len: int = 128
    tgt_len: int = 128


BASE = ModelShape()
QUICK = ModelShape(d_model=32, num_heads=4, num_layers=1, d_ff=64, vocab=50, batch=2, src_len=8, tgt_len=6)

# Dense bf16 tensor-core peaks from NVIDIA's datasheets (TFLOP/s, without sparsity): the
# usual denominator of MFU. Matched against torch.cuda.get_device_name().
PEAK_BF16_TFLOPS = {"H100": 989.4, "H200": 989.4, "A100": 312.0, "L4": 121.0, "A10": 125.0}


def peak_tflops(device_name: str) -> float | None:
    """The datasheet bf16 peak of a GPU named `device_name`, or None when unknown."""
    for key, value in PEAK_BF16_TFLOPS.items():
        if key in device_name:
            return value
    return None


def forward_flops(shape: ModelShape) -> float:
    """Floating-point operations of one forward pass over a batch (matrix products only).

    Counted as PaLM and nanoGPT count them: 2 per multiply-add of every linear layer and
    of both attention products, attention counted in full even where a causal mask lets a
    kernel skip half. Elementwise work (LayerNorm, softmax, dropout) is left out: it costs
    memory traffic, not tensor-core FLOPs.
    """
    d, f, S, T, B = shape.d_model, shape.d_ff, shape.src_len, shape.tgt_len, shape.batch
    linear = lambda n_in, n_out, tokens: 2 * n_in * n_out * tokens  # noqa: E731
    attention = lambda q_len, k_len: 2 * 2 * q_len * k_len * d       # QK^T and (weights)V  # noqa: E731
    encoder = 4 * linear(d, d, S) + linear(d, f, S) + linear(f, d, S) + attention(S, S)
    decoder = (4 * linear(d, d, T) + attention(T, T)                              # self-attention
               + 2 * linear(d, d, T) + 2 * linear(d, d, S) + attention(T, S)      # cross: q, o on T; k, v on S
               + linear(d, f, T) + linear(f, d, T))
    generator = linear(d, shape.vocab, T)
    return float(B * (shape.num_layers * (encoder + decoder) + generator))


def training_flops(shape: ModelShape) -> float:
    """Forward + backward: the backward pass costs twice the forward (gradients of inputs and weights)."""
    return 3 * forward_flops(shape)


def _fused_attention_forward(self: nn.Module, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                             mask: torch.Tensor | None = None) -> torch.Tensor:
    """The course's MultiHeadAttention.forward with torch's fused attention inside.

    Same projections (w_q, w_k, w_v, w_o) and masks (True = may attend). Decoder
    self-attention layers are marked `causal` by course_model() and called without a
    mask, so the fused kernel applies the causal mask itself (the bench batch has no
    padding); a bool mask, when given, is passed on as it is.
    """
    B, Lq, D = query.shape
    h = self.num_heads
    q = self.w_q(query).view(B, Lq, h, D // h).transpose(1, 2)              # (B, h, Lq, d_k)
    k = self.w_k(key).view(B, key.size(1), h, D // h).transpose(1, 2)       # (B, h, Lk, d_k)
    v = self.w_v(value).view(B, value.size(1), h, D // h).transpose(1, 2)   # (B, h, Lk, d_k)
    causal = getattr(self, "causal", False) and mask is None
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal,
                                         dropout_p=self.dropout.p if self.training else 0.0)
    return self.w_o(out.transpose(1, 2).reshape(B, Lq, D))                 # (B, Lq, d_model)


def course_model(course: Course, shape: ModelShape) -> nn.Module:
    """Notebook 07's Transformer at `shape`, embeddings shared, attention fused."""
    Transformer = solution_namespace(course, "07_encoder_decoder")["Transformer"]
    model = Transformer(shape.vocab, shape.vocab, d_model=shape.d_model, num_heads=shape.num_heads,
                        num_layers=shape.num_layers, d_ff=shape.d_ff, dropout=shape.dropout,
                        max_len=max(shape.src_len, shape.tgt_len))
    model.src_embed.embedding.weight = model.tgt_embed.embedding.weight   # one matrix for all three (3.4)
    for layer in [*model.encoder.layers, *model.decoder.layers]:
        for name in ("self_attn", "cross_attn"):
            attention = getattr(layer, name, None)
            if attention is not None:
                attention.forward = types.MethodType(_fused_attention_forward, attention)
    for layer in model.decoder.layers:
        layer.self_attn.causal = True
    return model


class TorchTransformer(nn.Module):
    """The same model from torch's parts: nn.Transformer between shared embeddings and the output layer.

    nn.Transformer adds a final LayerNorm after each stack, which the course's post-norm
    model does not have: two small norms, under 0.1% of the FLOPs.
    """

    def __init__(self, shape: ModelShape) -> None:
        super().__init__()
        self.embed = nn.Embedding(shape.vocab, shape.d_model)
        self.scale = math.sqrt(shape.d_model)
        position = torch.arange(max(shape.src_len, shape.tgt_len), dtype=torch.float32)[:, None]
        angle = position / 10000 ** (torch.arange(0, shape.d_model, 2, dtype=torch.float32) / shape.d_model)
        self.register_buffer("pe", torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1))
        self.dropout = nn.Dropout(shape.dropout)
        self.transformer = nn.Transformer(shape.d_model, shape.num_heads, shape.num_layers, shape.num_layers,
                                          shape.d_ff, shape.dropout, batch_first=True, norm_first=False)
        self.generator = nn.Linear(shape.d_model, shape.vocab)
        self.generator.weight = self.embed.weight

    def _embed(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.embed(tokens) * self.scale + self.pe[:tokens.size(1)])

    def forward(self, src: torch.Tensor, tgt: torch.Tensor, src_mask: torch.Tensor | None = None,
                tgt_mask: torch.Tensor | None = None) -> torch.Tensor:
        causal = nn.Transformer.generate_square_subsequent_mask(tgt.size(1), device=tgt.device)
        hidden = self.transformer(self._embed(src), self._embed(tgt), tgt_mask=causal, tgt_is_causal=True)
        return self.generator(hidden)


@dataclass
class StepTiming:
    model: str
    mode: str
    step_ms: float
    tokens_per_s: float
    tflops: float
    mfu: float | None      # fraction of the datasheet peak, None where the peak is unknown
    parameters: int
    time_by_category: list[tuple[str, float, float]] = field(default_factory=list)  # with profile=True


def _batch(shape: ModelShape, device: str | torch.device, seed: int = 0) -> tuple[torch.Tensor, ...]:
    gen = torch.Generator().manual_seed(seed)
    src = torch.randint(4, shape.vocab, (shape.batch, shape.src_len), generator=gen).to(device)
    tgt = torch.randint(4, shape.vocab, (shape.batch, shape.tgt_len + 1), generator=gen).to(device)
    return src, tgt[:, :-1], tgt[:, 1:]


def time_training_step(model: nn.Module, shape: ModelShape, device: str | torch.device, repeats: int = 10,
                       warmup: int = 3, amp_dtype: torch.dtype = torch.bfloat16) -> float:
    """Median seconds of forward + backward (label-smoothed loss, bf16 autocast) on one batch."""
    src, tgt_in, tgt_out = _batch(shape, device)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    autocast = torch.autocast(device_type=torch.device(device).type, dtype=amp_dtype)

    def step():
        with autocast:
            logits = model(src, tgt_in)                                       # (B, T, V)
            loss = criterion(logits.reshape(-1, shape.vocab).float(), tgt_out.reshape(-1))
        loss.backward()
        model.zero_grad(set_to_none=True)

    cuda = torch.device(device).type == "cuda"
    for _ in range(warmup):
        step()
    samples = []
    for _ in range(repeats):
        if cuda:
            torch.cuda.synchronize()
        started = time.perf_counter()
        step()
        if cuda:
            torch.cuda.synchronize()
        samples.append(time.perf_counter() - started)
    samples.sort()
    return samples[len(samples) // 2]


def bench(course: Course, shape: ModelShape = BASE, device: str | torch.device = "cuda",
          compile_modes: tuple[bool, ...] = (False, True), repeats: int = 10,
          profile: bool = False) -> list[StepTiming]:
    """Time a training step of both models, eager and (optionally) under torch.compile.

    With `profile`, each model is then profiled once more (same compiled code), and its
    row says where the time went (`time_by_category`).
    """
    device = torch.device(device)
    name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"
    peak = peak_tflops(name)
    flops = training_flops(shape)
    tokens = shape.batch * (shape.src_len + shape.tgt_len)
    rows = []
    for label, build in (("course (notebook 07)", lambda: course_model(course, shape)),
                         ("nn.Transformer", lambda: TorchTransformer(shape))):
        for compiled in compile_modes:
            torch.manual_seed(0)
            model = build().to(device).train()
            runnable = torch.compile(model) if compiled else model
            seconds = time_training_step(runnable, shape, device, repeats=repeats)
            achieved = flops / seconds / 1e12
            rows.append(StepTiming(label, "torch.compile" if compiled else "eager", 1e3 * seconds, tokens / seconds,
                                   achieved, achieved / peak if peak else None,
                                   sum(p.numel() for p in model.parameters())))
            if profile:
                rows[-1].time_by_category = profile_step(runnable, shape, device)[1]
            del model, runnable
            if device.type == "cuda":
                torch.cuda.empty_cache()
    return rows


def table_rows(rows: list[StepTiming]) -> list[tuple]:
    """Rows for tabulate, with each model's step time relative to nn.Transformer's in the same mode."""
    theirs = {r.mode: r.step_ms for r in rows if r.model == "nn.Transformer"}
    return [(r.model, r.mode, f"{r.parameters / 1e6:.1f}M", round(r.step_ms, 1), f"{r.tokens_per_s:,.0f}",
             round(r.tflops, 1), "n/a" if r.mfu is None else f"{100 * r.mfu:.1f}%",
             round(r.step_ms / theirs[r.mode], 2) if r.mode in theirs else "")
            for r in rows]


HEADERS = ["model", "mode", "params", "step ms", "tokens/s", "TFLOP/s", "MFU", "vs nn.Transformer"]


# Kernel (or operator) name patterns -> what the time went to. First match wins.
TIME_CATEGORIES = (
    ("matrix products", ("gemm", "cutlass", "nvjet", "sm90_xmma", "aten::mm", "aten::addmm", "aten::bmm")),
    ("fused attention", ("flash", "fmha", "attention", "cudnn")),
    ("softmax and loss", ("softmax", "nll", "cross_entropy")),
    ("embedding", ("embedding", "index_put", "indexing_backward", "sort", "radix")),
    ("dropout", ("dropout", "bernoulli", "philox", "fused_dropout")),
    ("normalization", ("layer_norm", "norm")),
    ("reductions (sums, means)", ("reduce_kernel", "aten::sum", "aten::mean")),
    ("fused elementwise (compiled)", ("triton",)),
    ("copies and casts", ("copy", "cast", "to_copy", "fill")),
)


def time_categories(kernels: dict[str, float]) -> list[tuple[str, float, float]]:
    """[(category, milliseconds, share)] of {kernel name: milliseconds}, largest first."""
    totals: dict[str, float] = {}
    for name, ms in kernels.items():
        lowered = name.lower()
        category = next((label for label, keys in TIME_CATEGORIES if any(k in lowered for k in keys)),
                        "other elementwise")
        totals[category] = totals.get(category, 0.0) + ms
    whole = sum(totals.values()) or 1.0
    return sorted(((c, round(ms, 2), round(ms / whole, 3)) for c, ms in totals.items()), key=lambda r: -r[1])


def profile_step(model: nn.Module, shape: ModelShape, device: str | torch.device,
                 rows: int = 15) -> tuple[str, list[tuple[str, float, float]]]:
    """Where one training step's time goes: torch.profiler's top `rows` kernels, and the time by category.

    On a GPU the kernels and their device time; on a CPU the operators and their CPU time.
    """
    from torch.profiler import ProfilerActivity, profile

    cuda = torch.device(device).type == "cuda"
    time_training_step(model, shape, device, repeats=1, warmup=2)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=activities) as prof:
        time_training_step(model, shape, device, repeats=1, warmup=0)
    events = prof.key_averages()
    if cuda:   # kernels only: their self device time is where the GPU was busy
        kernels = {e.key: e.self_device_time_total / 1e3 for e in events
                   if e.self_device_time_total > 0 and not e.key.startswith(("aten::", "autograd::", "cuda"))}
    else:      # CPU: the aten operators' own time
        kernels = {e.key: e.self_cpu_time_total / 1e3 for e in events if e.key.startswith("aten::")}
    key = "self_device_time_total" if cuda else "self_cpu_time_total"
    return events.table(sort_by=key, row_limit=rows), time_categories(kernels)
