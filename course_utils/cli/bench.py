"""`course bench [PART]`: the course's benchmarks, each printed as a table."""
from __future__ import annotations

import argparse

from course_utils.cli.common import add_ids
from course_utils.course import Course, CourseError

PARTS = {
    "all": "every benchmark, written to docs/benchmarks.md",
    "grade": "grading throughput at 1 and N workers, and per notebook against plain nbgrader",
    "attention": "the course's attention against torch's (and, on a GPU, each SDPA backend)",
    "train": "notebook 07's accuracy, seconds and tokens/s",
    "decode": "notebook 09's KV cache",
    "mfu": "the paper's base model, course against nn.Transformer (GPU)",
}
ATTENTION_HEADERS = ["device", "L", "course ms", "nn.MHA ms", "fused ms", "course/nn", "course/fused"]


def _notebook(args: argparse.Namespace, course: Course) -> int:
    from tabulate import tabulate

    from course_utils.bench.suite import notebook_metrics

    aid = {"train": "07_encoder_decoder", "decode": "09_efficient_attention"}[args.what]
    metrics = notebook_metrics(course, aid, args.quick)
    if metrics is None:
        raise CourseError(f"solutions/{aid}/ does not exist yet.")
    print(tabulate(sorted(metrics.items()), headers=["metric", "value"]))
    return 1 if "error" in metrics else 0


def _attention(args: argparse.Namespace, course: Course) -> int:
    import torch
    from tabulate import tabulate

    from course_utils.bench import attention

    print(tabulate(attention.bench(course, attention.QUICK_LENGTHS if args.quick else attention.LENGTHS,
                                   repeats=attention.QUICK_REPEATS if args.quick else attention.REPEATS),
                   headers=ATTENTION_HEADERS))
    if torch.cuda.is_available() and not args.quick:
        print(tabulate(attention.bench(course, attention.LENGTHS, device="cuda", repeats=10),
                       headers=ATTENTION_HEADERS))
        print("\nAttention alone, forward + backward, bf16, (B, h, d_k) = (4, 8, 64):")
        print(tabulate(attention.sdpa_backends(course, attention.BACKEND_LENGTHS),
                       headers=["L", "course ms", *(f"{b.split('_')[0].lower()} ms" for b in attention.SDPA_BACKENDS)]))
    return 0


def _grade(args: argparse.Namespace, course: Course) -> int:
    from tabulate import tabulate

    from course_utils.bench.grade import QUICK_STUDENTS, STUDENTS, bench, graded_ids

    graded = graded_ids(course)
    ids = course.select(args.ids) if args.ids else (graded[:2] if args.quick else graded)
    students = args.students or (QUICK_STUDENTS if args.quick else STUDENTS)
    if args.against:
        from pathlib import Path

        from course_utils.bench.grade import AGAINST_HEADERS, against

        print(f"Per submission, one worker: this checkout against {args.against}, in turn, medians:")
        print(tabulate(against(course, Path(args.against).resolve(), ids, students, repeats=args.repeats),
                       headers=AGAINST_HEADERS))
        return 0
    rows, per_student = bench(course, ids, students, sorted({1, args.workers}))
    print(tabulate(rows, headers=["workers", "submissions", "seconds", "per minute", "speedup"]))
    print(f"one student's submission of {len(ids)} notebooks on one worker: {per_student:.1f} s")
    if not args.no_nbgrader:
        from course_utils.bench.grade import SIDE_BY_SIDE_HEADERS, side_by_side

        print("\nPer submission, one worker, against plain nbgrader autograde and the notebook's own time:")
        compared = ids[:1] if args.quick else ids  # a quick run compares one notebook: the test suite's
        print(tabulate(side_by_side(course, compared, students), headers=SIDE_BY_SIDE_HEADERS))
    return 0


def _mfu(args: argparse.Namespace, course: Course) -> int:
    import torch
    from tabulate import tabulate

    from course_utils.bench import mfu

    gpu = torch.cuda.is_available()
    quick = args.quick or not gpu
    shape = mfu.QUICK if quick else mfu.BASE
    if quick:
        print("no GPU (or --quick): a tiny model, to check the code path; MFU needs a GPU")
    rows = mfu.bench(course, shape, "cuda" if gpu else "cpu",
                     compile_modes=(False,) if quick or args.no_compile else (False, True),
                     repeats=2 if quick else 10, profile=args.profile)
    print(f"{shape}\ntraining FLOPs per step: {mfu.training_flops(shape) / 1e12:.3g} TFLOP; "
          f"device: {torch.cuda.get_device_name() if gpu else 'cpu'}, torch {torch.__version__}")
    print(tabulate(mfu.table_rows(rows), headers=mfu.HEADERS))
    for row in rows if args.profile else []:
        print(f"\nWhere a training step of {row.model} ({row.mode}) spends its time:")
        print(tabulate([(what, ms, f"{100 * share:.1f}%") for what, ms, share in row.time_by_category],
                       headers=["what", "ms", "share"]))
    return 0


def run(args: argparse.Namespace, course: Course) -> int:
    if args.what == "all":
        from course_utils.bench.suite import run as run_suite

        run_suite(course, quick=args.quick)
        return 0
    return {"train": _notebook, "decode": _notebook, "attention": _attention, "grade": _grade,
            "mfu": _mfu}[args.what](args, course)


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("bench", help="benchmarks that print a table")
    p.add_argument("what", nargs="?", choices=list(PARTS), default="all",
                   help="; ".join(f"{name}: {what}" for name, what in PARTS.items()))
    add_ids(p)
    p.add_argument("--workers", type=int, default=2, help="grade: the second worker count to time (besides 1)")
    p.add_argument("--students", type=int, default=None, help="grade: students in the synthetic class")
    p.add_argument("--no-nbgrader", action="store_true",
                   help="grade: leave out the side-by-side with plain nbgrader autograde")
    p.add_argument("--against", metavar="CHECKOUT", default=None,
                   help="grade: time this checkout side by side with another checkout of the course (its own "
                        ".venv), notebook by notebook, in turn")
    p.add_argument("--repeats", type=int, default=3, help="grade --against: runs per side and notebook")
    p.add_argument("--quick", action="store_true", help="a small run (what the test suite uses)")
    p.add_argument("--no-compile", action="store_true", help="mfu: eager mode only (no torch.compile)")
    p.add_argument("--profile", action="store_true", help="mfu: also say where a training step's time goes")
    p.set_defaults(run=run)
    return p
