"""`course demo`: the main job: release check, execute every notebook, grade a sample class."""
from __future__ import annotations

import argparse

from course_utils.course import Course

DESCRIPTION = """\
The course's main job, end to end, on this machine:

1. check that notebooks/ is what solutions/ gives;
2. execute every solution notebook (fast mode on a CPU, full mode on a CUDA GPU)
   into build/executed/, printing each notebook's seconds and kernel CPU seconds,
   and (fast mode) check every measured number the prose states is one the run printed;
3. write a sample class into build/demo-class/, a course root with its own
   gradebook.db: ada hands in the answers, alan the blank release, grace one
   mistake from the bug catalogue per graded notebook;
4. grade it in the sandbox as `course autograde` does, into
   build/demo-class/reports/grades.csv.

In build/demo-class/, `course feedback`, `course report` and `course export`
work on the graded class. Exit status 0 when every step did what it should."""


def run(args: argparse.Namespace, course: Course) -> int:
    from course_utils.qa.demo import demo

    return 0 if demo(course) else 1


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("demo", help="the main job: release check, execute, grade a sample class",
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.set_defaults(run=run)
    return p
