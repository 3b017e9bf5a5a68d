"""The `course` command: one module per subcommand, each registering itself with `add_parser`.

For everyone who types `course ...`: students (`validate`, `lab`), instructors (`generate`,
`autograde`, `feedback`, `answers`, `report`, `lab --instructor`, `publish`) and course authors (`execute`,
`catalogue`, `bench`, `demo`). A student's copy of the course (`course publish`) holds only the
students' command modules; the others are skipped there. Each module's options take their
defaults from the function or dataclass the command calls, so every default is written once;
heavy imports (nbgrader, papermill, torch) wait until a command runs, so `course --help` stays
quick.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import re
import sys

from course_utils.course import Course, CourseError
from course_utils.ipynb import skip_iri_format_checker

TRAIT_OPTION = re.compile(r"^--[A-Za-z_]\w*(\.\w+)+(=.*)?$")  # --Exchange.root=/srv/exchange
COMMANDS = ("generate", "execute", "autograde", "validate", "catalogue", "feedback", "answers", "report", "export",
            "bench", "demo", "lab", "publish")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="course", description="Attention, Graded: the course's tools.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        module = f"course_utils.cli.{name}"
        # A student's copy (`course publish`) leaves the instructors' modules out: skip those,
        # but let an import error inside a module that is here surface as it is.
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module).add_parser(sub)
    return parser


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line as `course` reads it; `args.extra` holds the options it hands on.

    Commands that hand options on to another program (`lab`: Jupyter and nbgrader) take
    `--Class.trait=value` options they do not know; every other command refuses them.
    """
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and not (getattr(args, "hands_on_options", False) and all(TRAIT_OPTION.match(x) for x in extra)):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.extra = extra
    return args


def main(argv: list[str] | None = None) -> int:
    skip_iri_format_checker()  # seconds off every command that reads a notebook
    args = parse(argv)
    try:
        course = Course.here() if getattr(args, "needs_course", True) else None
        return args.run(args, course)
    except CourseError as error:
        print(f"course {args.command}: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
