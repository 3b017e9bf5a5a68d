"""What the subcommands share: the notebook-id argument and reading a function's defaults."""
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


def default(function: Callable, name: str) -> object:
    """The default value of `function`'s parameter `name`: the CLI shows and uses the function's own."""
    return inspect.signature(function).parameters[name].default
