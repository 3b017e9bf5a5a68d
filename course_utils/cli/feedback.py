"""`course feedback`: per-student HTML feedback (no hidden tests) under feedback/."""
from __future__ import annotations

import argparse

from course_utils.cli.common import add_ids, add_student
from course_utils.course import Course


def run(args: argparse.Namespace, course: Course) -> int:
    from course_utils.grader.feedback import feedback

    for path in feedback(course, course.select(args.ids), students=args.student):
        print(f"wrote {path.relative_to(course.root)}")
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("feedback", help="write per-student HTML feedback (no hidden tests) under feedback/")
    add_ids(p)
    add_student(p)
    p.set_defaults(run=run)
    return p
