"""`course release`: make the student notebooks from the solutions, or check they are in sync."""
from __future__ import annotations

import argparse

from course_utils.cli.common import add_ids
from course_utils.course import Course


def run(args: argparse.Namespace, course: Course) -> int:
    from course_utils.grader import release

    ids = course.select(args.ids)
    folder = course.coursedir.release_directory
    if args.check:
        stale = release.check(course, ids)
        for aid, reasons in stale.items():
            print(f"out of date: {folder}/{aid}/: " + "; ".join(reasons))
        if stale:
            print(f"{len(stale)} notebook(s) out of date: run `course release {' '.join(stale)}`, "
                  f"then commit {folder}/.")
            return 1
        print(f"{folder}/ is in sync with {course.coursedir.source_directory}/ ({len(ids)} notebooks).")
        return 0
    for aid in release.release(course, ids):
        print(f"released {folder}/{aid}/")
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("release", help="make notebooks/ from solutions/ with nbgrader")
    add_ids(p)
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 naming stale notebooks")
    p.set_defaults(run=run)
    return p
