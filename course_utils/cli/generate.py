"""`course generate`: make the student notebooks from the solutions, or check they are in sync.

nbgrader's name for this step is generate_assignment; its "release" (release_assignment) is
handing the generated notebooks out through the exchange, which `course` leaves to nbgrader.
The command was called `course release` before; that name still works, with a note.
"""
from __future__ import annotations

import argparse
import sys

from course_utils.cli.common import add_ids
from course_utils.course import Course


DEPRECATED_NAME = "release"


def run(args: argparse.Namespace, course: Course) -> int:
    from course_utils.grader.term import release

    if args.command == DEPRECATED_NAME:
        print("course release is now `course generate` (nbgrader's generate_assignment; nbgrader's "
              "release_assignment hands notebooks out): the old name will go.", file=sys.stderr)
    ids = course.select(args.ids)
    folder = course.coursedir.release_directory
    if args.check:
        stale = release.check(course, ids)
        for aid, reasons in stale.items():
            print(f"out of date: {folder}/{aid}/: " + "; ".join(reasons))
        if stale:
            print(f"{len(stale)} notebook(s) out of date: run `course generate {' '.join(stale)}`, "
                  f"then commit {folder}/.")
            return 1
        print(f"{folder}/ is in sync with {course.coursedir.source_directory}/ ({len(ids)} notebooks).")
        return 0
    for aid in release.release(course, ids):
        print(f"released {folder}/{aid}/")
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("generate", aliases=[DEPRECATED_NAME],
                              help="make notebooks/ from solutions/ (nbgrader generate_assignment)")
    add_ids(p)
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 naming stale notebooks")
    p.set_defaults(run=run)
    return p
