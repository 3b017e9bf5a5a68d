"""`course catalogue`: grade the bug catalogue; wrong answers must lose points, right ones keep them."""
from __future__ import annotations

import argparse
from collections import Counter

from course_utils.cli.common import add_ids, default
from course_utils.course import Course
from course_utils.qa import catalogue


def run(args: argparse.Namespace, course: Course) -> int:
    stats: dict[str, int | list[str]] = {}
    verdicts = catalogue.run(course, course.select(args.ids), workers=args.workers, progress=True,
                             alone=args.alone, stats=stats)
    print(catalogue.table(verdicts))
    print()
    print(catalogue.rates_table(catalogue.rates(verdicts)))
    print()
    misses = [v for v in verdicts if not v.ok]
    wrong = [v for v in verdicts if v.expected == "less"]
    right = [v for v in verdicts if v.expected == "full" and v.entry.startswith("right_")]
    print(f"{len(wrong)} wrong answers ({sum(v.ok for v in wrong)} caught, "
          f"{sum(v.ok and v.seen for v in wrong)} by the visible tests alone), "
          f"{len(right)} right answers ({sum(v.ok for v in right)} kept full marks), {len(misses)} misses.")
    if args.alone:
        print(f"{stats['jobs']} submissions graded (every entry alone).")
    else:
        again = stats["graded again"]
        print(f"{stats['jobs']} submissions graded, {len(again)} of them an entry graded again alone (a verdict a "
              "shared submission could not prove)" + (": " + ", ".join(again) if again else "") + ".")
    for v in misses[:3]:   # why, for the first few: enough to tell a grader's bug from a machine's
        print(f"\n{v.assignment} / {v.exercise} / {v.entry}:\n{v.detail[-3000:]}")
    devices = Counter(v.device or "(did not say)" for v in verdicts)
    print("graded kernels ran on: " + ", ".join(f"{device} ({n})" for device, n in devices.most_common()))
    return 1 if misses else 0


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("catalogue", help="grade the bug catalogue: wrong answers must lose points")
    add_ids(p)
    p.add_argument("--workers", type=int, default=default(catalogue.run, "workers"),
                   help="submissions graded at once (default %(default)s)")
    p.add_argument("--alone", action="store_true",
                   help="grade every entry in a submission of its own (slower; the reference grouping must match)")
    p.set_defaults(run=run)
    return p
