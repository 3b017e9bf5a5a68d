"""`course bench`: every benchmark of the course in one table, saved to docs/benchmarks.md.

Parts: (1) seconds per solution notebook in fast mode; (2) grading throughput;
(3) the course's MultiHeadAttention against nn.MultiheadAttention and fused attention;
(4) notebook 07's training throughput (and, on a GPU, the base model's MFU);
(5) greedy decoding with and without a KV cache (notebook 09).
Targets are printed next to the measurements; the benchmarks measure, they do not fail.
"""
from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only
import matplotlib.pyplot as plt
import torch
from tabulate import tabulate

from course_utils.course import Course

TARGETS = {
    "attention": "course MHA within 1.3x of nn.MultiheadAttention on CPU at L=512",
    "decode": "KV-cache decoding at least 3x faster than recompute at 128 generated tokens",
    "mfu": "base model training step at least 35% MFU on an H100/H200 (bf16, fused attention)",
    "grading": "a full course submission in under 60 s on one core; 2 workers >= 1.7x one worker",
}


def machine() -> str:
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
    # The load average before the run says whether the timings had the machine to themselves.
    load = f", load average {os.getloadavg()[0]:.2f} at the start" if hasattr(os, "getloadavg") else ""
    return f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} CPU threads{load}, GPU: {gpu}"


def notebooks_part(course: Course, quick: bool) -> list[tuple]:
    from course_utils.qa.execute import execute

    ids = course.ids()[:3] if quick else course.ids()
    runs = execute(course, ids, device="cpu", fast=True, out_dir=course.build("bench-executed"))
    return [(r.notebook, r.status, round(r.seconds, 1)) for r in runs]


def grading_part(course: Course, quick: bool) -> tuple[list[tuple], float, int]:
    from course_utils.bench.grade import QUICK_STUDENTS, STUDENTS, bench, graded_ids

    graded = graded_ids(course)
    ids = graded[:1] if quick else graded
    rows, per_student = bench(course, ids, students=QUICK_STUDENTS if quick else STUDENTS, workers_list=[1, 2])
    return rows, per_student, len(ids)


def attention_part(course: Course, quick: bool) -> list[tuple]:
    from course_utils.bench.attention import (
        LENGTHS,
        QUICK_LENGTHS,
        QUICK_REPEATS,
        REPEATS,
        bench,
    )

    lengths = QUICK_LENGTHS if quick else LENGTHS
    rows = bench(course, lengths, device="cpu", repeats=QUICK_REPEATS if quick else REPEATS)
    if torch.cuda.is_available() and not quick:
        rows += bench(course, lengths, device="cuda", repeats=10)
    return rows


def metrics_of(executed_notebook: Path) -> dict | None:
    """The JSON line printed by the cell tagged `metrics` of an executed notebook, or None."""
    from course_utils.ipynb import read

    for cell in read(executed_notebook).cells:
        if "metrics" in cell.metadata.get("tags", []):
            for output in cell.get("outputs", []):
                for line in output.get("text", "").splitlines():
                    if line.startswith("{"):
                        return json.loads(line)
    return None


def notebook_metrics(course: Course, aid: str, quick: bool) -> dict | None:
    """Run notebook `aid` (fast on CPU; full on a GPU unless quick) and read its metrics cell.

    With quick=True nothing is trained: the metrics of the latest executed copy
    (build/executed/, left by `course execute` or `course demo`) are reported instead.
    """
    from course_utils.qa.execute import execute

    if aid not in course.ids():
        return None
    if quick:
        executed = course.build("executed", f"{aid}.ipynb")
        found = metrics_of(executed) if executed.is_file() else None
        part = "train" if aid.startswith("07") else "decode"
        return found or {"note": f"not measured by --quick: run `course bench {part}`"}
    gpu = torch.cuda.is_available()
    (run,) = execute(course, [aid], device="cuda" if gpu else "cpu", fast=not gpu,
                     out_dir=course.build("bench-executed"))
    return metrics_of(run.output) if run.status == "ok" else {"error": run.detail}


GPU_SECTION = "\n## On a GPU"


def kept_gpu_section(path: Path) -> str:
    """The GPU section of an earlier benchmarks.md (written by hand from .ci/gpu-run), to keep on a rewrite.

    A run on a machine without a GPU cannot measure those rows; it must not delete them.
    """
    text = path.read_text() if path.is_file() else ""
    return text[text.index(GPU_SECTION):] if GPU_SECTION in text else ""


def plot_attention(rows: list[tuple], path: Path) -> None:
    fig, ax = plt.subplots(figsize=(6, 4))
    for device in sorted({r[0] for r in rows}):
        sub = [r for r in rows if r[0] == device]
        xs = [r[1] for r in sub]
        for column, label, style in ((2, "course MultiHeadAttention", "-o"), (3, "nn.MultiheadAttention", "--s"),
                                     (4, "fused (SDPA)", ":^")):
            ax.plot(xs, [r[column] for r in sub], style, label=f"{label} ({device})")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_title("Multi-head attention, forward + backward")
    ax.set_xlabel("sequence length L")
    ax.set_ylabel("milliseconds (median)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def run(course: Course, quick: bool = False, write: bool = True) -> list[str]:
    started = time.perf_counter()
    sections = [f"# Benchmarks\n\nMeasured by `course bench{' --quick' if quick else ''}` on {machine()}, "
                f"torch {torch.__version__}, {time.strftime('%Y-%m-%d')}.\n"]

    notebooks = notebooks_part(course, quick)
    table = tabulate(notebooks, headers=["notebook", "status", "seconds (fast, CPU)"], tablefmt="github")
    sections.append("## 1. Solution notebooks in fast mode\n\n" + table)
    print(table, "\n")

    rows, per_student, count = grading_part(course, quick)
    table = tabulate(rows, headers=["workers", "submissions", "seconds", "per minute", "speedup"], tablefmt="github")
    note = f"One student's submission of {count} notebooks on one worker: {per_student:.1f} s."
    sections.append(f"## 2. Grading throughput\n\nTarget: {TARGETS['grading']}.\n\n{table}\n\n{note}")
    print(table, "\n" + note, "\n")

    folder = course.root / ("build/bench-quick" if quick else "docs")  # quick runs never touch docs/
    rows = attention_part(course, quick)
    headers = ["device", "L", "course ms", "nn.MHA ms", "fused ms", "course / nn.MHA", "course / fused"]
    table = tabulate(rows, headers=headers, tablefmt="github")
    plot = folder / "images" / "attention-benchmark.png"
    plot_attention(rows, plot)
    sections.append(f"## 3. Multi-head attention against torch\n\nTarget: {TARGETS['attention']}.\n\n{table}\n\n"
                    f"![attention timings](images/{plot.name})")
    print(table, "\n")

    for title, aid, target in (("4. Training (notebook 07)", "07_encoder_decoder", TARGETS["mfu"]),
                               ("5. Greedy decoding with a KV cache (notebook 09)", "09_efficient_attention",
                                TARGETS["decode"])):
        metrics = notebook_metrics(course, aid, quick)
        body = ("notebook not written yet" if metrics is None else
                tabulate(sorted(metrics.items()), headers=["metric", "value"], tablefmt="github"))
        sections.append(f"## {title}\n\nTarget: {target}.\n\n{body}")
        print(title, "\n" + body, "\n")

    minutes = (time.perf_counter() - started) / 60
    sections.append(f"_Whole run: {minutes:.1f} minutes._\n")
    if write:
        out = folder / "benchmarks.md"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("\n\n".join(sections) + kept_gpu_section(out))
        print(f"wrote {out.relative_to(course.root)}")
    return sections
