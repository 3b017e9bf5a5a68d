"""`course autograde`: grade submissions with nbgrader and export the scores.

This is the seam the class-scale grader builds on: `grade_assignment` grades a set of
students' submissions of one assignment inside one course root, and `collect` turns the
gradebook into one `GradeRow` per (student, assignment), whatever happened.
"""
import csv
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from course_utils.course import Course, CourseError
from course_utils.gradebook import max_score, submission_scores
from course_utils.nbgrader_runner import generate, make_scratch_root, run_nbgrader

CSV_COLUMNS = ["student_id", "assignment", "score", "max_score", "status", "detail", "flags"]


@dataclass
class GradeRow:
    student_id: str
    assignment: str
    score: float
    max_score: float
    status: str  # graded | error | missing
    detail: str = ""
    cells: dict = field(default_factory=dict, repr=False)  # test cell -> (score, max)
    flags: list = field(default_factory=list)  # what the instructor should review
    messages: dict = field(default_factory=dict, repr=False)  # failing test cell -> (error, message, traceback)


def submission_path(course: Course, student, aid):
    return course.root / "submitted" / student / aid / f"{aid}.ipynb"


def autograded_path(course: Course, student, aid):
    return course.root / "autograded" / student / aid / f"{aid}.ipynb"


def log_path(course: Course, aid):
    return course.root / "build" / "logs" / f"autograde-{aid}.log"


def grade_assignment(course: Course, aid):
    """Record `aid` in the gradebook and autograde every submission of it under submitted/.

    The student version is generated into a temporary folder, so grading never rewrites
    the course's notebooks/.
    """
    with tempfile.TemporaryDirectory(prefix="course-release-") as tmp:
        generate(course, aid, release_dir=tmp)
    result = run_nbgrader(course.root, "autograde", aid, "--create", "--force")
    log = log_path(course, aid)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(result.log)
    return result


def collect(course: Course, aid, students):
    """One row per student for `aid`: graded, missing (nothing submitted) or error."""
    rows = []
    top = max_score(course, aid)
    for student in students:
        if not submission_path(course, student, aid).is_file():
            rows.append(GradeRow(student, aid, 0.0, top, "missing",
                                 f"no submitted/{student}/{aid}/{aid}.ipynb"))
            continue
        scores = submission_scores(course, aid, student)
        if scores is None or not autograded_path(course, student, aid).is_file():
            rows.append(GradeRow(student, aid, 0.0, top, "error",
                                 f"nbgrader could not grade it; see {log_path(course, aid).relative_to(course.root)}"))
            continue
        score, most, cells = scores
        failed = sorted(name for name, (got, out_of) in cells.items() if got < out_of)
        detail = "failed: " + ", ".join(failed) if failed else "all tests passed"
        rows.append(GradeRow(student, aid, score, most, "graded", detail, cells))
    return rows


def students_with_submissions(course: Course):
    folder = course.root / "submitted"
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


PRIVATE_PARTS = ["solutions", "submitted", "autograded", "feedback", "build", "reports", "gradebook.db"]


def hidden_from_students(course: Course, jobs_dir):
    """What student code must not read while it is graded: answers, other students, grades.

    Both the course being graded and the course this package is installed from (for a
    scratch root made from the repository) are covered.
    """
    roots = {course.root, Path(__file__).resolve().parents[1]}
    return sorted({str(root / name) for root in roots for name in PRIVATE_PARTS
                   if (root / name).exists()} | {str(jobs_dir)})


def _templates(course: Course, ids, folder):
    """A gradebook per assignment holding just that assignment, for jobs to copy."""
    made = {}
    for aid in ids:
        scratch = make_scratch_root(course, folder / aid, [aid])
        generate(scratch, aid, release_dir=folder / aid / "release")
        made[aid] = str(scratch.root / "gradebook.db")
    return made


def share_cores(limits, workers, scheduler=None, cores=None):
    """`limits` with each kernel's CPU threads set to its share of this machine's cores.

    `workers` kernels at once that each spread over every core fight over them (2 workers
    on 2 cores graded only 1.3x faster than 1; with a thread each, 1.8x). Kernels on a Dask
    cluster elsewhere keep their own machine's default, as does an explicit `threads`.
    """
    if limits.threads or scheduler not in (None, "local"):
        return limits
    return replace(limits, threads=max(1, (cores or os.cpu_count() or 1) // max(1, workers)))


def autograde(course: Course, ids=None, workers=1, scheduler=None, db_url=None, force=False,
              limits=None, report=None, progress=True):
    """Grade every submission under submitted/, in parallel, into the gradebook.

    Each (student, assignment) is graded in its own process and private root
    (`jobs.run_job`); this process alone merges the results into the gradebook and
    appends them to the journal, so a killed run resumes where it stopped.
    Returns one GradeRow per (student, assignment); writes reports/grades.csv.
    """
    from tqdm.auto import tqdm

    from course_utils import jobs, scheduler as schedulers
    from course_utils.gradebook import course_settings
    from course_utils.journal import Journal, fingerprint
    from course_utils.sanitize import locate

    students = students_with_submissions(course)
    if not students:
        raise CourseError(f"Nothing to grade: put submissions at {course.root / 'submitted'}"
                          "/<student_id>/<assignment>/<assignment>.ipynb (nbgrader's layout).")
    known = course.ids()
    ids = ids or [aid for aid in known if any((course.root / "submitted" / s / aid).is_dir() for s in students)]
    limits = share_cores(limits or jobs.Limits(), workers, scheduler)
    default_db, course_id = course_settings(course)
    db_url = db_url or default_db
    work = course.root / "build" / "grading"
    jobs_dir = work / "jobs"
    shutil.rmtree(jobs_dir, ignore_errors=True)  # private roots left by a killed run
    journal = Journal(work / "journal.jsonl")
    done = {} if force else journal.load()

    for aid in ids:  # the real gradebook learns each assignment (its cells and points)
        with tempfile.TemporaryDirectory(prefix="course-release-") as tmp:
            generate(course, aid, release_dir=tmp, db_url=db_url)
    templates = _templates(course, ids, jobs_dir / "templates")
    hide = hidden_from_students(course, jobs_dir)

    rows, todo = {}, []
    for aid in ids:
        top = max_score(course, aid, db_url)
        for student in students:
            path, renamed = locate(course.root / "submitted" / student / aid, aid)
            if path is None:
                rows[student, aid] = GradeRow(student, aid, 0.0, top, "missing",
                                              f"no submitted/{student}/{aid}/{aid}.ipynb")
                continue
            key, stamp = (student, aid), fingerprint(path)
            previous = done.get(key)
            if previous and previous["fingerprint"] == stamp and previous["db_url"] == db_url:
                rows[key] = GradeRow(student, aid, previous["score"], previous["max_score"], previous["status"],
                                     previous["detail"], flags=previous["flags"])
                continue
            todo.append((jobs.GradeJob(aid, student, str(path), templates[aid], str(course.config_file),
                                       course_id, str(jobs_dir), hide, limits),
                         stamp, renamed, top))

    meta = {(job.student, job.assignment): (stamp, renamed, top) for job, stamp, renamed, top in todo}
    if scheduler is not None:
        results = schedulers.run_dask([job for job, *_ in todo], workers, scheduler)
    else:
        results = schedulers.run_local([job for job, *_ in todo], workers)
    bar = tqdm(total=len(todo), desc="grading", unit="submission", disable=not progress or not todo)
    for result in results:
        stamp, renamed, top = meta[result.student, result.assignment]
        row = _merge(course, db_url, course_id, result, renamed, top)
        journal.append({**asdict(row), "fingerprint": stamp, "db_url": db_url})
        rows[result.student, result.assignment] = row
        bar.update(1)
    bar.close()
    ordered = [rows[s, aid] for aid in ids for s in students]
    write_csv(ordered, report or course.root / "reports" / "grades.csv")
    return ordered


def _merge(course, db_url, course_id, result, renamed, top):
    from course_utils import gradebook_writer

    flags = list(result.flags) + ([f"misnamed notebook: {renamed}"] if renamed else [])
    if result.status != "graded":
        gradebook_writer.ensure_student(db_url, course_id, result.student)
        return GradeRow(result.student, result.assignment, 0.0, top, "error", result.detail, flags=flags)
    gradebook_writer.record(db_url, course_id, result)
    target = autograded_path(course, result.student, result.assignment)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(result.autograded)
    detail = result.detail + (f"; {renamed}" if renamed else "")
    return GradeRow(result.student, result.assignment, result.score, result.max_score, "graded", detail,
                    result.cells, flags)


def write_csv(rows, path):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({**asdict(row), "flags": "; ".join(row.flags)})
    return path
