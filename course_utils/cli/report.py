"""`course report`: per-exercise pass rates and score histograms (reports/)."""
from __future__ import annotations

import argparse

from course_utils.cli.common import add_db_url, add_ids
from course_utils.course import Course, CourseError


def run(args: argparse.Namespace, course: Course) -> int:
    from tabulate import tabulate

    from course_utils.grader.term.class_report import histograms, pass_rates
    from course_utils.grader.engine.gradebook import warn_other_gradebook

    warn_other_gradebook(course, args.db_url, "report")
    rates, scores = pass_rates(course, course.select(args.ids), db_url=args.db_url)
    if not rates:
        raise CourseError("The gradebook holds no graded submission yet: run `course autograde` first, or, if you "
                          "graded into another gradebook, pass its URL with --db-url.")
    print(tabulate([(a, cell, n, ok, f"{100 * rate:.0f}%") for a, cell, n, ok, rate in rates],
                   headers=["assignment", "test cell", "submissions", "full marks", "pass rate"]))
    for path in histograms(scores, course.reports()):
        print(f"wrote {path.relative_to(course.root)}")
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("report", help="per-exercise pass rates and score histograms (reports/)")
    add_ids(p)
    add_db_url(p)
    p.set_defaults(run=run)
    return p
