"""`course autograde`: grade a class, one private job per (student, assignment), into the gradebook.

This is the one grading path of the course: instructors' `course autograde`, and the
catalogue, demo and benchmarks that prove and measure it, all call `autograde()`. It
records each assignment in the real gradebook (nbgrader's generate_assignment), builds a
template gradebook per assignment for the jobs to carry, grades every submission that is
new or changed as a `jobs.GradeJob` (locally or on Dask), and, in this process alone,
merges each finished job into the gradebook, the journal and autograded/. It returns one
`GradeRecord` per (student, assignment) and writes reports/grades.csv.
"""
from __future__ import annotations

import csv
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from course_utils.course import Course, CourseError
from course_utils.grader import gradebook
from course_utils.grader import scheduler as schedulers
from course_utils.grader.jobs import GradeJob, Limits
from course_utils.grader.journal import Journal, fingerprint
from course_utils.grader.nbgrader_runner import generate, make_scratch_root
from course_utils.grader.records import CSV_COLUMNS, GradeRecord
from course_utils.grader.sanitize import locate


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity: a container's or taskset's share), else all."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def share_cores(limits: Limits, workers: int, scheduler: str | None = None, cores: int | None = None) -> Limits:
    """`limits` with each kernel's CPU threads set to its share of the cores this grader may use.

    `workers` kernels at once that each spread over every core fight over them (2 workers
    on 2 cores graded only 1.3x faster than 1; with a thread each, 1.8x). Kernels on a Dask
    cluster elsewhere keep their own machine's default, as does an explicit `threads`.
    """
    if limits.threads or scheduler not in (None, "local"):
        return limits
    return replace(limits, threads=max(1, (cores or available_cores()) // max(1, workers)))


def require_driver(db_url: str) -> None:
    """A clear error, naming the extra to install, when the gradebook's database driver is missing."""
    if db_url.startswith("postgresql"):
        try:
            import psycopg  # noqa: F401
        except ImportError as error:
            raise CourseError("A PostgreSQL gradebook needs the grader's extra packages: "
                              "pip install -e \".[grader]\" (or pip install 'attention-graded[grader]').") from error


def template_gradebook(course: Course, aid: str, folder: Path) -> bytes:
    """An SQLite gradebook holding just `aid` (its cells and points), as bytes for the jobs to carry."""
    scratch = make_scratch_root(course, folder / aid, [aid])
    generate(scratch, aid, release_dir=folder / aid / "release")
    return (scratch.root / "gradebook.db").read_bytes()


@dataclass
class _Submission:
    student: str
    aid: str
    path: Path
    stamp: str
    renamed: str | None
    max_score: float


def autograde(course: Course, ids: list[str] | None = None, workers: int = 1, scheduler: str | None = None,
              db_url: str | None = None, force: bool = False, limits: Limits | None = None,
              report: Path | None = None, progress: bool = True) -> list[GradeRecord]:
    """Grade every submission under the submitted folder, in parallel, into the gradebook.

    `scheduler`: None grades on `workers` local workers; "local" on a local Dask cluster
    of `workers` processes; an address (tcp://host:8786) on that Dask cluster. A run that
    was stopped resumes where it stopped; `force` regrades what is unchanged too.
    """
    from tqdm.auto import tqdm

    students = course.students()
    if not students:
        raise CourseError(f"Nothing to grade: put submissions at {course.root / course.coursedir.submitted_directory}"
                          "/<student_id>/<assignment>/<assignment>.ipynb (nbgrader's layout).")
    known = course.ids()
    ids = ids or [aid for aid in known if any(course.submitted(s, aid).is_dir() for s in students)]
    limits = share_cores(limits or Limits(), workers, scheduler)
    db_url = db_url or course.db_url
    require_driver(db_url)
    work = course.build("grading")
    jobs_dir = work / "jobs"
    shutil.rmtree(jobs_dir, ignore_errors=True)  # private roots left by a killed run
    journal = Journal(work / "journal.jsonl")
    done = {} if force else journal.load()

    templates = {}
    for aid in ids:  # the real gradebook learns each assignment (its cells and points)
        with tempfile.TemporaryDirectory(prefix="course-release-") as tmp:
            generate(course, aid, release_dir=tmp, db_url=db_url)
        templates[aid] = template_gradebook(course, aid, jobs_dir / "templates")
    config = course.config_file.read_text()

    records, todo = {}, []
    for aid in ids:
        top = gradebook.max_score(db_url, course.course_id, aid)
        for student in students:
            path, renamed = locate(course.submitted(student, aid), aid)
            if path is None:
                records[student, aid] = GradeRecord(student, aid, "missing", 0.0, top,
                                                    f"no {path_hint(course, student, aid)}")
                continue
            stamp = fingerprint(path.read_bytes())
            previous = done.get((student, aid))
            if previous and previous.get("fingerprint") == stamp and previous.get("db_url") == db_url:
                records[student, aid] = GradeRecord.from_summary(previous)
                continue
            todo.append(_Submission(student, aid, path, stamp, renamed, top))

    # Workers on this machine make their private roots in jobs_dir (a kernel sees only its own);
    # workers elsewhere in their own temporary folder.
    work_dir = str(jobs_dir) if scheduler in (None, "local") else None

    def jobs() -> Iterator[GradeJob]:  # made as workers free up: the bytes of a few submissions at a time
        for sub in todo:
            yield GradeJob(sub.aid, sub.student, sub.path.read_bytes(), templates[sub.aid], config, limits, work_dir)

    if scheduler is not None:
        results = schedulers.run_dask(jobs(), workers, scheduler)
    else:
        results = schedulers.run_local(jobs(), workers)
    by_key = {(sub.student, sub.aid): sub for sub in todo}
    bar = tqdm(total=len(todo), desc="grading", unit="submission", disable=not progress or not todo)
    for result in results:
        sub = by_key[result.student_id, result.assignment]
        record = _merge(course, db_url, result, sub)
        journal.append({**record.summary(), "fingerprint": sub.stamp, "db_url": db_url})
        records[sub.student, sub.aid] = record
        bar.update(1)
    bar.close()
    ordered = [records[s, aid] for aid in ids for s in students]
    write_csv(ordered, report or course.reports("grades.csv"))
    return ordered


def path_hint(course: Course, student: str, aid: str) -> str:
    """The submitted notebook's path relative to the course root, for messages."""
    return str((course.submitted(student, aid) / f"{aid}.ipynb").relative_to(course.root))


def _merge(course: Course, db_url: str, result: GradeRecord, sub: _Submission) -> GradeRecord:
    """Record a finished job in the gradebook and autograded/; return the record as the class sees it."""
    if sub.renamed:
        result.flags = [*result.flags, f"misnamed notebook: {sub.renamed}"]
    if result.status != "graded":
        gradebook.ensure_student(db_url, course.course_id, result.student_id)
        result.score, result.max_score = 0.0, sub.max_score
        return result
    gradebook.record(db_url, course.course_id, result)
    target = course.autograded(result.student_id, result.assignment)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(result.autograded)
    if sub.renamed:
        result.detail += f"; {sub.renamed}"
    return result


def write_csv(records: list[GradeRecord], path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for record in records:
            writer.writerow({**record.summary(), "flags": "; ".join(record.flags)})
    return path
