"""`course answers`: the think questions' model answers, one Markdown file per notebook, for after the deadline."""
from __future__ import annotations

import argparse

from course_utils.cli.common import add_ids
from course_utils.course import Course


def run(args: argparse.Namespace, course: Course) -> int:
    from course_utils.grader.term.model_answers import write_answers

    for aid in course.select(args.ids):
        target = write_answers(course, aid, args.to)
        print(f"wrote {target}" if target else f"{aid} asks no think question")
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("answers", help="the think questions' model answers (reports/answers/ID.md), "
                                              "to hand out after the deadline")
    add_ids(p)
    p.add_argument("--to", default=None, metavar="FOLDER", help="where to write them (default: reports/answers)")
    p.set_defaults(run=run)
    return p
