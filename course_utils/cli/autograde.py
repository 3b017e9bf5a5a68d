"""`course autograde`: grade the submitted folder into the gradebook; write reports/grades.csv.

Exit status, for a cron job or a script: 0 when every row is graded or missing; 1 when a row
needs someone to act (`error`, whose detail says why, or `unmatched`: no notebook could be taken
for the assignment); 2 for a problem with the command itself (nothing to grade, a bad option);
75 (EX_TEMPFAIL) with --no-wait when another run is grading the course; 130 when interrupted.
"""
from __future__ import annotations

import argparse

from course_utils.cli.common import add_db_url, add_ids, add_student, default
from course_utils.course import Course
from course_utils.grader.engine.jobs import Limits
from course_utils.grader.engine.pipeline import autograde
from course_utils.grader.engine.records import NEEDS_ACTION, records_table

NEEDS_ACTION_EXIT = 1


def run(args: argparse.Namespace, course: Course) -> int:
    limits = Limits(cell_seconds=args.cell_timeout, job_seconds=args.timeout,
                    memory_bytes=int(args.memory_gb * 2**30), processes=args.processes,
                    folder_bytes=int(args.folder_mb * 2**20),
                    tmp_bytes=int(args.tmp_mb * 2**20), shm_bytes=int(args.shm_mb * 2**20))
    records = autograde(course, course.select(args.ids) if args.ids else None, workers=args.workers,
                        scheduler=args.scheduler, db_url=args.db_url, force=args.force, limits=limits,
                        students=args.student, keep_manual=not args.reset_manual, wait=not args.no_wait)
    print(records_table(records))
    print(f"wrote {course.reports('grades.csv')}")
    held = [r for r in records if r.held]
    if held:
        print(f"{len(held)} held for review (their flags say what to look at; the formgrader lists them as "
              "needing manual grading, and `course export` leaves them out until you unflag them): "
              + ", ".join(f"{r.student_id}/{r.assignment}" for r in held))
    acting = [r for r in records if r.status in NEEDS_ACTION]
    retried = [r for r in acting if r.retry]
    if retried:
        print(f"{len(retried)} not graded, possibly through the grading machine's fault (see their detail); run "
              "`course autograde` again to grade them: " + ", ".join(f"{r.student_id}/{r.assignment}" for r in retried))
    return NEEDS_ACTION_EXIT if acting else 0


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("autograde", help="grade submitted/ into the gradebook; write reports/grades.csv")
    add_ids(p)
    p.add_argument("--workers", type=int, default=default(autograde, "workers"),
                   help="submissions graded at once (default %(default)s)")
    p.add_argument("--scheduler", nargs="?", const="local", default=None, metavar="ADDRESS",
                   help="grade on a Dask cluster at ADDRESS (tcp://host:8786); alone: a local Dask cluster")
    add_db_url(p)
    add_student(p)
    p.add_argument("--force", action="store_true", help="regrade submissions already graded and unchanged")
    p.add_argument("--no-wait", action="store_true",
                   help="when another run is grading this course, stop at once (exit 75) instead of waiting")
    p.add_argument("--reset-manual", action="store_true",
                   help="clear the formgrader's manual scores, comments and extra credit of what is regraded "
                        "(default: keep them)")
    p.add_argument("--cell-timeout", type=int, default=Limits.cell_seconds,
                   help="seconds one cell may run (default %(default)s)")
    p.add_argument("--timeout", type=int, default=Limits.job_seconds,
                   help="seconds one submission may take (default %(default)s)")
    p.add_argument("--memory-gb", type=float, default=Limits.memory_bytes / 2**30,
                   help="memory of a student's kernel and every process it starts, together (default %(default)g)")
    p.add_argument("--processes", type=int, default=Limits.processes,
                   help="processes and threads of a student's kernel and what it starts, together "
                        "(default %(default)s)")
    p.add_argument("--folder-mb", type=float, default=Limits.folder_bytes / 2**20,
                   help="what a kernel may write into its notebook's folder, in MB (default %(default)g)")
    p.add_argument("--tmp-mb", type=float, default=Limits.tmp_bytes / 2**20,
                   help="what it may write into /tmp, and into its home folder, in MB each (default %(default)g)")
    p.add_argument("--shm-mb", type=float, default=Limits.shm_bytes / 2**20,
                   help="what it may write into /dev/shm, in MB (default %(default)g)")
    p.set_defaults(run=run)
    return p
