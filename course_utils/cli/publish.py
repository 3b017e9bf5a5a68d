"""`course publish DIR`: write the students' copy of the course (instructors' tool).

The copy is what the public repository, and the Binder badge, serve: the released notebooks up
to `--upto`, the students' part of course_utils, and a README and pyproject.toml for students;
never solutions/, tests or the grader. course_utils.grader.term.publish makes it; this module is
its command line, whose defaults are that function's.
"""
from __future__ import annotations

import argparse

from course_utils.cli.common import default
from course_utils.course import Course
from course_utils.grader.term.publish import publish

UPTO_HELP = ("publish the notebooks up to and including this one (an id or its two digits; default: all). "
             "Later notebooks' provided cells hold the answers to earlier ones, so publishing all of them at "
             "the start of term gives those answers away: publish a notebook once the deadlines before it "
             "have passed")


def run(args: argparse.Namespace, course: Course) -> int:
    report = publish(course, args.dest, upto=args.upto, git=args.git, repository=args.repository,
                     force=args.force)
    first, last = report.ids[0], report.ids[-1]
    print(f"published {len(report.ids)} notebook(s), {first} to {last}, and {len(report.files)} files "
          f"in all to {report.dest}")
    provided = (f" ({report.provided_lines} lines of earlier answers sit in later notebooks' provided cells, "
                "as intended)") if report.provided_lines else ""
    print(f"scanned {report.lines_scanned} lines: no answer and no hidden test{provided}")
    print(f"Binder badge: {report.binder_url} (the repository {report.repository}; --repository changes it)")
    if report.commit:
        print(f"git: one commit {report.commit[:12]} on branch main; push it with "
              f"`git -C {report.dest} push https://github.com/{report.repository}.git main`")
    elif report.kept_history:
        print(f"git: the previous publish's history is kept; commit this release with "
              f"`git -C {report.dest} add -A && git -C {report.dest} commit`")
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register `course publish` on the `course` command's subparsers."""
    p = subparsers.add_parser(
        "publish", help="write the students' copy of the course (no solutions) into DIR",
        description="Write the students' copy of the course into DIR: the released notebooks up to --upto, "
                    "the students' part of course_utils, nbgrader_config.py, environment.yml, and a README and "
                    "pyproject.toml for students. Every file is scanned for lines of answers and hidden tests "
                    "first. Publish one deadline at a time (--upto): later notebooks' provided cells hold "
                    "the answers to earlier ones.")
    p.add_argument("dest", metavar="DIR", help="a new or empty folder outside the course")
    p.add_argument("--upto", metavar="NN", default=default(publish, "upto"), help=UPTO_HELP)
    p.add_argument("--git", action="store_true", default=default(publish, "git"),
                   help="make DIR a fresh git repository with one commit (never the course's history)")
    p.add_argument("--repository", metavar="OWNER/NAME", default=default(publish, "repository"),
                   help="the GitHub repository students get (the Binder badge and pyproject's Repository); "
                        "default: the [project.urls] Repository of the course's pyproject.toml")
    p.add_argument("--force", action="store_true", default=default(publish, "force"),
                   help="replace a previous `course publish` in DIR (keeping its .git/ unless --git)")
    p.set_defaults(run=run)
    return p
