"""`course export`: the gradebook's grades for a learning-management system (reports/canvas.csv).

For instructors who hand grades on. It runs nbgrader's own `export` with the course's exporter
plugin (course_utils.grader.term.export), on the gradebook `--db-url` names, else the one
`c.CourseDirectory.db_url` in nbgrader_config.py names.

Exit status: 0 when the CSV was written (held submissions and assignments without a
submission are left empty or out, and named on stdout); 2 when nothing was written: a gradebook
holding no submission of the chosen assignments (nothing graded yet, or another gradebook than
the one graded into), or nbgrader failing; the message says what to do.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from course_utils.cli.common import add_db_url, add_ids, add_student
from course_utils.course import Course, CourseError

# nbgrader's exporter plugins by the name `--format` takes.
EXPORTERS = {"canvas": "course_utils.grader.term.export.CanvasExportPlugin",
             "nbgrader": "course_utils.grader.term.export.CheckedCsvExportPlugin"}
# `--missing`: the value of CanvasExportPlugin.missing each choice sets.
MISSING = {"zero": "0", "blank": ""}
# What the plugins log that the instructor should read: their refusal (course_utils.grader.term.export.NO_GRADES,
# written out so that this command does not import nbgrader to read it) and their warnings.
NO_GRADES = "No grades to export"
NOTICES = ("Held for review", "Left out")


def run(args: argparse.Namespace, course: Course) -> int:
    from course_utils.grader.engine.gradebook import db_url_options, warn_other_gradebook
    from course_utils.grader.engine.nbgrader_runner import run_nbgrader

    if args.missing and args.format != "canvas":
        raise CourseError("--missing applies to --format canvas; nbgrader's own CSV has a row per submission.")
    warn_other_gradebook(course, args.db_url, "export")
    target = Path(args.to or course.reports(f"{args.format}.csv")).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    options = [f"--exporter={EXPORTERS[args.format]}", f"--to={target}", *db_url_options(args.db_url)]
    options += [f"--assignment={aid}" for aid in (course.select(args.ids) if args.ids else [])]
    options += [f"--student={student}" for student in args.student or []]
    if args.missing:
        options.append(f"--CanvasExportPlugin.missing={MISSING[args.missing]}")
    result = run_nbgrader(course.root, "export", *options)
    if not result.ok:
        refusal = [line[line.index(NO_GRADES):] for line in result.log.splitlines() if NO_GRADES in line]
        if refusal:
            raise CourseError(refusal[0])
        raise CourseError("nbgrader could not export the grades:\n" + "\n".join(result.log.strip().splitlines()[-25:]))
    print(f"wrote {target}")
    for line in result.log.splitlines():
        for notice in NOTICES:
            if notice in line:
                print(line[line.index(notice):])
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("export", help="grades for an LMS: reports/canvas.csv (Canvas's gradebook import)")
    add_ids(p)
    add_student(p)
    add_db_url(p)
    p.add_argument("--format", choices=sorted(EXPORTERS), default="canvas",
                   help="canvas: Canvas's gradebook CSV (default); nbgrader: nbgrader's own grades CSV")
    p.add_argument("--missing", choices=sorted(MISSING), default=None,
                   help="what a student of the gradebook who handed nothing in gets: zero, or blank (Canvas keeps "
                        "what it has); default: c.CanvasExportPlugin.missing in nbgrader_config.py, else zero")
    p.add_argument("--to", default=None, help="the CSV to write (default: reports/FORMAT.csv)")
    p.set_defaults(run=run)
    return p
