"""What the subcommands share: the notebook-id, student and gradebook options, and reading a function's defaults."""
from __future__ import annotations

import argparse
import inspect
from collections.abc import Callable

IDS_HELP = "notebook ids (or their two-digit prefixes); all when none"


def add_ids(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("ids", nargs="*", help=IDS_HELP)


def add_student(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--student", action="append", metavar="ID",
                        help="only this student (nbgrader's student id; repeat for more)")


# The environment variable a course's nbgrader_config.py may read its gradebook URL from (docs/instructors.md: "One
# gradebook"); `course lab --db-url` sets it for the server, whose formgrader rereads that file.
DB_URL_ENV = "COURSE_DB_URL"
DB_URL_HELP = ("SQLAlchemy URL of the gradebook, e.g. postgresql://USER@HOST/DB (default: c.CourseDirectory.db_url "
               "in nbgrader_config.py, the course's SQLite)")


def add_db_url(parser: argparse.ArgumentParser) -> None:
    """`--db-url`, the same on every command that opens the gradebook (autograde, feedback, export, report, lab)."""
    parser.add_argument("--db-url", default=None, metavar="URL", help=DB_URL_HELP)


def default(function: Callable, name: str) -> object:
    """The default value of `function`'s parameter `name`: the CLI shows and uses the function's own."""
    return inspect.signature(function).parameters[name].default
