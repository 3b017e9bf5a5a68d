"""The `course` command: release, execute, autograde, validate, catalogue, feedback, report, bench, demo, lab."""
import argparse
import sys
from pathlib import Path

from course_utils import lab
from course_utils.course import Course, CourseError
from course_utils.device import CHOICES


def _release(args, course):
    from course_utils import release

    ids = course.select(args.ids)
    if args.check:
        stale = release.check(course, ids)
        for aid, reasons in stale.items():
            print(f"out of date: notebooks/{aid}/: " + "; ".join(reasons))
        if stale:
            print(f"{len(stale)} notebook(s) out of date: run `course release {' '.join(stale)}`, "
                  "then commit notebooks/.")
            return 1
        print(f"notebooks/ is in sync with solutions/ ({len(ids)} notebooks).")
        return 0
    for aid in release.release(course, ids):
        print(f"released notebooks/{aid}/")
    return 0


def _execute(args, course):
    from course_utils.execute import execute
    from course_utils.report import execution_table

    runs = execute(course, course.select(args.ids), device=args.device, fast=args.fast, seed=args.seed)
    print(execution_table(runs))
    failed = [r for r in runs if r.status != "ok"]
    for run in failed:
        print(f"FAILED {run.notebook}: {run.detail} (executed copy: {run.output})")
    return 1 if failed else 0


def _autograde(args, course):
    from course_utils.grading import autograde
    from course_utils.report import grade_rows_table

    from course_utils.jobs import Limits

    limits = Limits(cell_seconds=args.cell_timeout, job_seconds=args.timeout, memory_bytes=int(args.memory_gb * 2**30))
    rows = autograde(course, course.select(args.ids) if args.ids else None, workers=args.workers,
                     scheduler=args.scheduler, db_url=args.db_url, force=args.force, limits=limits)
    print(grade_rows_table(rows))
    print(f"wrote {course.root / 'reports' / 'grades.csv'}")
    return 0


def _validate(args, course):
    from course_utils.validate import describe, validate

    results = validate(args.path, invert=args.invert)
    for line in describe(results, invert=args.invert):
        print(line)
    bad = results.get("type_changed") or results.get("changed") or results.get(
        "passed" if args.invert else "failed")
    return 1 if bad else 0


def _catalogue(args, course):
    from course_utils import catalogue
    from course_utils.report import catalogue_table

    verdicts = catalogue.run(course, course.select(args.ids), workers=args.workers)
    print(catalogue_table(verdicts))
    misses = [v for v in verdicts if not v.ok]
    wrong = [v for v in verdicts if v.expected == "less"]
    right = [v for v in verdicts if v.expected == "full" and v.entry.startswith("right_")]
    print(f"{len(wrong)} wrong answers ({sum(v.ok for v in wrong)} caught), "
          f"{len(right)} right answers ({sum(v.ok for v in right)} kept full marks), {len(misses)} misses.")
    return 1 if misses else 0


def _feedback(args, course):
    from course_utils.feedback import feedback

    made = feedback(course, course.select(args.ids))
    for path in made:
        print(f"wrote {path.relative_to(course.root)}")
    return 0


def _report(args, course):
    from tabulate import tabulate

    from course_utils.class_report import histograms, pass_rates

    rates, scores = pass_rates(course, course.select(args.ids), db_url=args.db_url)
    if not rates:
        raise CourseError("The gradebook holds no graded submission yet: run `course autograde` first.")
    print(tabulate([(a, cell, n, ok, f"{100 * rate:.0f}%") for a, cell, n, ok, rate in rates],
                   headers=["assignment", "test cell", "submissions", "full marks", "pass rate"]))
    for path in histograms(scores, course.root / "reports"):
        print(f"wrote {path.relative_to(course.root)}")
    return 0


def _bench(args, course):
    from tabulate import tabulate

    if args.what == "all":
        from course_utils.bench_suite import run

        run(course, quick=args.quick)
    elif args.what in ("train", "decode"):
        from course_utils.bench_suite import notebook_metrics

        aid = {"train": "07_encoder_decoder", "decode": "08_efficient_attention"}[args.what]
        metrics = notebook_metrics(course, aid, args.quick)
        if metrics is None:
            raise CourseError(f"solutions/{aid}/ does not exist yet.")
        print(tabulate(sorted(metrics.items()), headers=["metric", "value"]))
        return 1 if "error" in metrics else 0
    elif args.what == "attention":
        from course_utils.bench_attention import LENGTHS, QUICK_LENGTHS, QUICK_REPEATS, REPEATS, bench as attention

        print(tabulate(attention(course, QUICK_LENGTHS if args.quick else LENGTHS,
                                 repeats=QUICK_REPEATS if args.quick else REPEATS),
                       headers=["device", "L", "course ms", "nn.MHA ms", "fused ms", "course/nn", "course/fused"]))
    elif args.what == "grade":
        from course_utils.bench_grade import QUICK_STUDENTS, STUDENTS, bench, graded_ids

        graded = graded_ids(course)
        ids = course.select(args.ids) if args.ids else (graded[:2] if args.quick else graded)
        students = args.students or (QUICK_STUDENTS if args.quick else STUDENTS)
        rows, per_student = bench(course, ids, students, sorted({1, args.workers}))
        print(tabulate(rows, headers=["workers", "submissions", "seconds", "per minute", "speedup"]))
        print(f"one student's submission of {len(ids)} notebooks on one worker: {per_student:.1f} s")
    return 0


def _demo(args, course):
    from course_utils.demo import demo

    return 0 if demo(course) else 1


def build_parser():
    parser = argparse.ArgumentParser(prog="course", description="Attention, Graded: the course's tools.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    ids_help = "notebook ids (or their two-digit prefixes); all when none"

    p = sub.add_parser("release", help="make notebooks/ from solutions/ with nbgrader")
    p.add_argument("ids", nargs="*", help=ids_help)
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 naming stale notebooks")
    p.set_defaults(run=_release)

    p = sub.add_parser("execute", help="run solution notebooks with papermill into build/executed/")
    p.add_argument("ids", nargs="*", help=ids_help)
    p.add_argument("--device", choices=CHOICES, default="auto")
    p.add_argument("--fast", action="store_true", help="small sizes and short training (what CI runs)")
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(run=_execute)

    p = sub.add_parser("autograde", help="grade submitted/ into the gradebook; write reports/grades.csv")
    p.add_argument("ids", nargs="*", help=ids_help)
    p.add_argument("--workers", type=int, default=1, help="submissions graded at once (default 1)")
    p.add_argument("--scheduler", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="grade on a Dask cluster at ADDRESS (tcp://host:8786); alone: a local Dask cluster")
    p.add_argument("--db-url", default=None, help="SQLAlchemy URL of the gradebook (default: the course's SQLite)")
    p.add_argument("--force", action="store_true", help="regrade submissions already graded and unchanged")
    p.add_argument("--cell-timeout", type=int, default=120, help="seconds one cell may run (default 120)")
    p.add_argument("--timeout", type=int, default=600, help="seconds one submission may take (default 600)")
    p.add_argument("--memory-gb", type=float, default=4.0, help="memory limit of a student's kernel (default 4)")
    p.set_defaults(run=_autograde)

    p = sub.add_parser("validate", help="check one notebook as the Validate button does")
    p.add_argument("path", type=Path, help="the notebook to validate")
    p.add_argument("--invert", action="store_true", help="report tests that pass (for blank releases)")
    p.set_defaults(run=_validate, needs_course=False)

    p = sub.add_parser("catalogue", help="grade the bug catalogue: wrong answers must lose points")
    p.add_argument("ids", nargs="*", help=ids_help)
    p.add_argument("--workers", type=int, default=2, help="assignments graded at once")
    p.set_defaults(run=_catalogue)

    p = sub.add_parser("feedback", help="write per-student HTML feedback (no hidden tests) under feedback/")
    p.add_argument("ids", nargs="*", help=ids_help)
    p.set_defaults(run=_feedback)

    p = sub.add_parser("report", help="per-exercise pass rates and score histograms (reports/)")
    p.add_argument("ids", nargs="*", help=ids_help)
    p.add_argument("--db-url", default=None, help="the gradebook to read (default: the course's SQLite)")
    p.set_defaults(run=_report)

    p = sub.add_parser("bench", help="benchmarks that print a table")
    p.add_argument("what", nargs="?", choices=["all", "grade", "attention", "train", "decode"], default="all",
                   help="all (default): every benchmark, written to docs/benchmarks.md; grade: grading "
                        "throughput at 1 and N workers; attention: the course's MHA against torch's; "
                        "train: notebook 07's accuracy, seconds and tokens/s; decode: notebook 08's KV cache")
    p.add_argument("ids", nargs="*", help=ids_help)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--students", type=int, default=None)
    p.add_argument("--quick", action="store_true", help="a small run (what the test suite uses)")
    p.set_defaults(run=_bench)

    p = sub.add_parser("demo", help="the main job: release check, execute, grade a sample class")
    p.set_defaults(run=_demo)

    lab.add_parser(sub)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        course = Course.here() if getattr(args, "needs_course", True) else None
        return args.run(args, course)
    except CourseError as error:
        print(f"course {args.command}: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
