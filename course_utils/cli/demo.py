"""`course demo`: the main job: release check, execute every notebook, grade a sample class."""
from __future__ import annotations

import argparse

from course_utils.course import Course


def run(args: argparse.Namespace, course: Course) -> int:
    from course_utils.qa.demo import demo

    return 0 if demo(course) else 1


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("demo", help="the main job: release check, execute, grade a sample class")
    p.set_defaults(run=run)
    return p
