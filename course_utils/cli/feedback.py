"""`course feedback`: per-student HTML feedback (no hidden tests) under feedback/.

Exit status, for a cron job to read: 0 when every page was written; 1 when some could not be
(the others are written; stderr lists each such student with a one-line reason and the log
that says more); 2 when nothing could be done (no graded submission; nbgrader failing before
any page, e.g. on a gradebook it cannot open; no page written at all, each failure listed).
See course_utils.grader.term.feedback.
"""
from __future__ import annotations

import argparse
import sys

from course_utils.cli.common import add_db_url, add_ids, add_student
from course_utils.course import Course


def run(args: argparse.Namespace, course: Course) -> int:
    from course_utils.grader.term.feedback import describe, feedback
    from course_utils.grader.engine.gradebook import warn_other_gradebook

    warn_other_gradebook(course, args.db_url, "feedback")
    outcome = feedback(course, course.select(args.ids), students=args.student, db_url=args.db_url)
    for path in outcome.written:
        print(f"wrote {path.relative_to(course.root)}")
    if not outcome.failed:
        return 0
    print(f"course feedback: {len(outcome.failed)} page(s) could not be written ({len(outcome.written)} were):",
          file=sys.stderr)
    for page in outcome.failed:
        print(describe(page, course.root), file=sys.stderr)
    return 1


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("feedback", help="write per-student HTML feedback (no hidden tests) under feedback/")
    add_ids(p)
    add_student(p)
    add_db_url(p)
    p.set_defaults(run=run)
    return p
