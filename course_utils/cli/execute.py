"""`course execute`: run solution notebooks with papermill into build/executed/."""
from __future__ import annotations

import argparse

from course_utils.cli.common import add_ids, default
from course_utils.course import Course
from course_utils.notebook.device import CHOICES
from course_utils.qa.execute import execute, execution_table


def run(args: argparse.Namespace, course: Course) -> int:
    runs = execute(course, course.select(args.ids), device=args.device, fast=args.fast, seed=args.seed,
                   workers=args.workers)
    print(execution_table(runs))
    failed = [r for r in runs if r.status != "ok"]
    for failure in failed:
        print(f"FAILED {failure.notebook}: {failure.detail} (executed copy: {failure.output})")
    return 1 if failed else 0


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("execute", help="run solution notebooks with papermill into build/executed/")
    add_ids(p)
    p.add_argument("--device", choices=CHOICES, default=default(execute, "device"))
    p.add_argument("--fast", action="store_true", help="small sizes and short training (what CI runs)")
    p.add_argument("--seed", type=int, default=default(execute, "seed"))
    p.add_argument("--workers", type=int, default=default(execute, "workers"),
                   help="notebooks run at once (default %(default)s)")
    p.set_defaults(run=run)
    return p
