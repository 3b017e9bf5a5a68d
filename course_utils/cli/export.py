"""`course export`: the gradebook's grades for a learning-management system (reports/canvas.csv)."""
from __future__ import annotations

import argparse
from pathlib import Path

from course_utils.cli.common import add_ids, add_student
from course_utils.course import Course, CourseError

# nbgrader's exporter plugins by the name `--format` takes.
EXPORTERS = {"canvas": "course_utils.grader.export.CanvasExportPlugin",
             "nbgrader": "nbgrader.plugins.CsvExportPlugin"}


def run(args: argparse.Namespace, course: Course) -> int:
    from course_utils.grader.nbgrader_runner import run_nbgrader

    target = Path(args.to or course.reports(f"{args.format}.csv")).resolve()
    target.parent.mkdir(parents=True, exist_ok=True)
    options = [f"--exporter={EXPORTERS[args.format]}", f"--to={target}"]
    options += [f"--assignment={aid}" for aid in (course.select(args.ids) if args.ids else [])]
    options += [f"--student={student}" for student in args.student or []]
    result = run_nbgrader(course.root, "export", *options)
    if not result.ok:
        raise CourseError("nbgrader could not export the grades:\n" + result.log[-2000:])
    print(f"wrote {target}")
    for line in result.log.splitlines():  # the Canvas plugin's warnings: grades held for the instructor
        if "Held for review" in line:
            print(line[line.index("Held for review"):])
    return 0


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("export", help="grades for an LMS: reports/canvas.csv (Canvas's gradebook import)")
    add_ids(p)
    add_student(p)
    p.add_argument("--format", choices=sorted(EXPORTERS), default="canvas",
                   help="canvas: Canvas's gradebook CSV (default); nbgrader: nbgrader's own grades CSV")
    p.add_argument("--to", default=None, help="the CSV to write (default: reports/FORMAT.csv)")
    p.set_defaults(run=run)
    return p
