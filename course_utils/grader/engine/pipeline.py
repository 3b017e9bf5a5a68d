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

import contextlib
import csv
import hashlib
import io
import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from course_utils.course import Course, CourseError, load_config
from course_utils.grader.engine import gradebook
from course_utils.grader.engine import scheduler as schedulers
from course_utils.grader.engine.jobs import GradeJob, Limits
from course_utils.grader.engine.journal import Journal, fingerprint
from course_utils.grader.engine.nbgrader_runner import generate, make_scratch_root
from course_utils.grader.engine.lock import course_lock
from course_utils.grader.engine.records import CSV_COLUMNS, RETRIED, GradeRecord
from course_utils.grader.judge.sanitize import BrokenSubmission, locate, read_submission


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity: a container's or taskset's share), else all."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def share_cores(limits: Limits, workers: int, scheduler: str | None = None, cores: int | None = None) -> Limits:
    """`limits` with each kernel's CPU threads set to its share of the cores this grader may use.

    `workers` kernels at once that each spread over every core fight over them (2 workers
    on 2 cores graded only 1.3x faster than 1; with a thread each, 1.8x). On Dask, local or
    not, each worker sets its jobs' share of its own machine (`scheduler.with_thread_share`);
    an explicit `threads` is kept everywhere.
    """
    if limits.threads or scheduler is not None:
        return limits
    return replace(limits, threads=schedulers.thread_share(cores or available_cores(), workers))


def require_driver(db_url: str) -> None:
    """A clear error, naming the extra to install, when the gradebook's database driver is missing."""
    if db_url.startswith("postgresql"):
        try:
            import psycopg  # noqa: F401
        except ImportError as error:
            raise CourseError("A PostgreSQL gradebook needs the grader's extra packages: "
                              "pip install -e \".[grader]\" (or pip install 'attention-graded[grader]').") from error


@dataclass(frozen=True)
class Template:
    """What every job of one assignment carries: its gradebook (cells, points, hidden tests) and release."""
    gradebook: bytes   # an SQLite gradebook holding just this assignment
    release: bytes     # the released notebook, which the source screen compares submissions with


def template(course: Course, aid: str, folder: Path) -> Template:
    """The gradebook and release of `aid`, made by nbgrader's generate_assignment, as bytes for the jobs."""
    scratch = make_scratch_root(course, folder / aid, [aid])
    generate(scratch, aid, release_dir=folder / aid / "release")
    return Template((scratch.root / "gradebook.db").read_bytes(),
                    (folder / aid / "release" / aid / f"{aid}.ipynb").read_bytes())


def source_digest(course: Course, aid: str) -> str:
    """What `aid`'s template and gradebook entry are made from: its source folder, the config, nbgrader."""
    import nbgrader

    digest = hashlib.sha256(f"{nbgrader.__version__}\0".encode() + course.config_file.read_bytes())
    folder = course.solution_folder(aid)
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and ".ipynb_checkpoints" not in p.parts
                       and "__pycache__" not in p.parts):
        digest.update(f"\0{path.relative_to(folder)}\0".encode() + path.read_bytes())
    return digest.hexdigest()[:16]


def prepare_assignment(course: Course, aid: str, db_url: str, scratch: Path) -> Template:
    """Record `aid` in the gradebook at `db_url` and make its template, each only when its source changed.

    Each is an nbgrader generate_assignment (a second or two); a run that grades one student (the
    formgrader's button) or resumes would spend most of its time on them. Both are kept in
    build/grading/templates/, by the digest of what they are made from (`source_digest`), and the
    gradebooks the assignment was recorded in are listed there; one whose assignment has gone
    (a reset gradebook) gets it again.
    """
    kept = course.build("grading", "templates", aid, source_digest(course, aid))
    recorded_in = kept / "recorded-in"
    url = gradebook.shown_url(db_url)
    recorded = recorded_in.read_text().splitlines() if recorded_in.is_file() else []
    if url not in recorded or not gradebook.has_assignment(db_url, course.course_id, aid):
        with tempfile.TemporaryDirectory(prefix="course-release-") as tmp:
            generate(course, aid, release_dir=tmp, db_url=db_url)
        recorded_in.parent.mkdir(parents=True, exist_ok=True)
        recorded_in.write_text("".join(f"{line}\n" for line in {*recorded, url}))
    if not (kept / "gradebook.db").is_file() or not (kept / "release.ipynb").is_file():
        made = template(course, aid, scratch)
        replace_file(kept / "gradebook.db", made.gradebook)
        replace_file(kept / "release.ipynb", made.release)
        return made
    return Template((kept / "gradebook.db").read_bytes(), (kept / "release.ipynb").read_bytes())


# The files nbgrader's exchange puts beside a submitted notebook (`nbgrader submit` writes them,
# `collect` copies them): the submission's time, and the secret that files its feedback where
# `fetch_feedback` looks. nbgrader's autograde copies every file of the submitted folder into
# autograded/, where generate_feedback and release_feedback read these two; the course copies
# only these, as small regular files, since the rest of a student's folder is the student's
# (links, large files) and grading needs none of it.
EXCHANGE_FILES = ("timestamp.txt", "submission_secret.txt")
EXCHANGE_FILE_BYTES = 4096


@dataclass
class _Submission:
    student: str
    aid: str
    path: Path
    stamp: str
    renamed: str | None
    max_score: float
    exchange: dict[str, str]       # EXCHANGE_FILES present in the submitted folder: name -> text
    flags: list[str]


def exchange_files(folder: Path) -> tuple[dict[str, str], list[str]]:
    """The EXCHANGE_FILES of a submitted folder as text, and flags for those that are not plain and small."""
    found, flags = {}, []
    for name in EXCHANGE_FILES:
        path = folder / name
        if not os.path.lexists(path):
            continue
        if path.is_symlink() or not path.is_file() or path.stat().st_size > EXCHANGE_FILE_BYTES:
            flags.append(f"ignored {name}: not a small plain file")
            continue
        found[name] = path.read_text(errors="replace")
    if "timestamp.txt" in found:
        try:
            gradebook.parse_timestamp(found["timestamp.txt"])
        except ValueError:
            flags.append("ignored timestamp.txt: not a time nbgrader can read")
            del found["timestamp.txt"]
    return found, flags


def autograde(course: Course, ids: list[str] | None = None, workers: int = 1, scheduler: str | None = None,
              db_url: str | None = None, force: bool = False, limits: Limits | None = None,
              report: Path | None = None, progress: bool = True, students: list[str] | None = None,
              keep_manual: bool = True, wait: bool = True, command: str = "course autograde") -> list[GradeRecord]:
    """Grade every submission under the submitted folder, in parallel, into the gradebook.

    `scheduler`: None grades on `workers` local workers; "local" on a local Dask cluster
    of `workers` processes; an address (tcp://host:8786) on that Dask cluster. A run that
    was stopped resumes where it stopped; `force` regrades what is unchanged too, and an error
    that may be the machine's (`GradeRecord.retry`) is graded again by any run.
    `students` grades only those (default: every student with a submitted folder, and every
    student of the gradebook's roster shows up in the report, as missing if nothing came in).
    A regrade keeps what graders entered in the formgrader (manual scores and comments, extra
    credit) unless `keep_manual` is False. The report (reports/grades.csv) keeps the rows of
    other assignments and students from earlier runs, and is rewritten as each job finishes.
    One run at a time per course (`lock.course_lock`): `wait` waits for a run under way, else
    raises CourseBusy; `command` is what the lock tells others of this run.
    """
    with course_lock(course, command, wait=wait):
        work = course.build("grading")
        # Job folders left by a killed run go (this run holds the lock, so no run is using them);
        # this run's own live in a folder of their own.
        shutil.rmtree(work / "jobs", ignore_errors=True)
        (work / "jobs").mkdir(parents=True)
        jobs_dir = Path(tempfile.mkdtemp(prefix="run-", dir=work / "jobs"))
        try:
            return _grade(course, ids, workers, scheduler, db_url, force, limits, report, progress, students,
                          keep_manual, jobs_dir)
        finally:
            shutil.rmtree(jobs_dir, ignore_errors=True)


def _grade(course: Course, ids: list[str] | None, workers: int, scheduler: str | None, db_url: str | None,
           force: bool, limits: Limits | None, report: Path | None, progress: bool, students: list[str] | None,
           keep_manual: bool, jobs_dir: Path) -> list[GradeRecord]:
    from tqdm.auto import tqdm

    submitted = course.students()
    if students:
        submitted = [s for s in submitted if s in students]
    if not submitted:
        raise CourseError(f"Nothing to grade: put submissions at {course.root / course.coursedir.submitted_directory}"
                          "/<student_id>/<assignment>/<assignment>.ipynb (nbgrader's layout)"
                          + (f"; none there for {', '.join(students)}." if students else "."))
    known = course.ids()
    ids = ids or [aid for aid in known if any(course.submitted(s, aid).is_dir() for s in submitted)]
    limits = share_cores(limits or Limits(), workers, scheduler)
    db_url = db_url or course.db_url
    require_driver(db_url)
    gradebook.remember_url(course, db_url)  # feedback and export warn when they read another gradebook
    journal = Journal(course.build("grading", "journal.jsonl"))
    done = {} if force else journal.load()
    report = report or course.reports("grades.csv")

    # The real gradebook learns each assignment (its cells and points); the jobs carry its template.
    templates = {aid: prepare_assignment(course, aid, db_url, jobs_dir / "templates") for aid in ids}
    config = course.config_file.read_text()
    everyone = sorted(set(submitted) | set(gradebook.roster(db_url, course.course_id))) if not students \
        else sorted(set(students))
    # Every student with a folder is on the gradebook's roster, so that the formgrader and the
    # LMS export list those who handed in nothing (or nothing that could be graded) too.
    gradebook.ensure_students(db_url, course.course_id, submitted)

    records, todo = {}, []
    # Every folder below it must be the student's own, and every notebook a file of its own: a link
    # to a classmate's notebook is never graded as the linker's (sanitize.locate, read_submission).
    handed_in = course.root / course.coursedir.submitted_directory
    for aid in ids:
        top = gradebook.max_score(db_url, course.course_id, aid)
        for student in everyone:
            path, note = locate(course.submitted(student, aid), aid, top=handed_in)
            try:
                raw = read_submission(path, handed_in) if path is not None else b""
            except BrokenSubmission as error:
                path, note = None, str(error)
            if path is None:
                status = "unmatched" if note else "missing"
                records[student, aid] = GradeRecord(student, aid, status, 0.0, top,
                                                    note or f"no {path_hint(course, student, aid)}")
                continue
            files, flags = exchange_files(course.submitted(student, aid))
            # The same notebook handed in again is a new submission (a new time, a new feedback secret).
            stamp = fingerprint(raw + (json.dumps(files, sort_keys=True).encode() if files else b""))
            del raw
            previous = done.get((student, aid))
            if previous and previous.get("fingerprint") == stamp and previous.get("db_url") == db_url \
                    and not previous.get("retry"):
                records[student, aid] = GradeRecord.from_summary(previous)
                continue
            todo.append(_Submission(student, aid, path, stamp, note, top, files, flags))

    def ordered() -> list[GradeRecord]:
        return [records[s, aid] for aid in ids for s in everyone if (s, aid) in records]

    write_csv(ordered(), report, order=known)  # what is known before grading: missing, unchanged
    secret = course_secret(course)
    # Workers on this machine make their private roots in jobs_dir (a kernel sees only its own);
    # workers elsewhere in their own temporary folder.
    work_dir = str(jobs_dir) if scheduler in (None, "local") else None

    changed: list[GradeRecord] = []   # submissions that became links or went away since they were found

    def jobs() -> Iterator[GradeJob]:  # made as workers free up: the bytes of a few submissions at a time
        for sub in todo:
            made = templates[sub.aid]
            try:
                raw = read_submission(sub.path, handed_in)
            except BrokenSubmission as error:
                changed.append(GradeRecord(sub.student, sub.aid, "unmatched", 0.0, sub.max_score, str(error)))
                continue
            yield GradeJob(sub.aid, sub.student, raw, made.gradebook, config, limits, work_dir, made.release,
                           submission_salt(secret, raw))

    if scheduler is not None:
        results = schedulers.run_dask(jobs(), workers, scheduler)
    else:
        results = schedulers.run_local(jobs(), workers)
    by_key = {(sub.student, sub.aid): sub for sub in todo}
    bar = tqdm(total=len(todo), desc="grading", unit="submission", disable=not progress or not todo)
    # The late-penalty plugin is set in the course's config.
    with gradebook.Recorder(db_url, course.course_id, load_config(course.root)) as recorder:
        for result in results:
            sub = by_key[result.student_id, result.assignment]
            record = _merge(course, recorder, result, sub, keep_manual)
            if record.retry:
                record.detail += f"; {RETRIED}"
            records[sub.student, sub.aid] = record
            # The report before the journal: a run killed between the two regrades this submission
            # next time, where the other order would leave a journalled grade missing from the report.
            write_csv([record], report, order=known)
            journal.append({**record.summary(), "fingerprint": sub.stamp, "db_url": db_url, "retry": record.retry})
            bar.update(1)
    bar.close()
    for record in changed:
        records[record.student_id, record.assignment] = record
        write_csv([record], report, order=known)
    final = ordered()
    # Graders change scores in the formgrader after autograding: every graded row of the report,
    # this run's and earlier runs', shows what the gradebook holds now.
    graded = {key for key, row in read_rows(report).items() if row["status"] == "graded"}
    graded |= {(r.student_id, r.assignment) for r in final if r.status == "graded"}
    now = gradebook.stored(db_url, course.course_id, sorted(graded))
    for r in final:
        if r.status == "graded" and (r.student_id, r.assignment) in now:
            r.score, r.late_submission_penalty, r.timestamp = now[r.student_id, r.assignment]
    write_csv(final, report, order=known, stored=now)
    return final


def course_secret(course: Course) -> bytes:
    """The course's grading secret (build/grading/secret, made once, readable by the grader's account only).

    Test inputs are drawn from it and each submission's bytes (`submission_salt`): a student who reads
    every test (the course's code is public) still cannot know the inputs their notebook will get.
    """
    path = course.build("grading", "secret")
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileExistsError), open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600),
                                                        "wb") as handle:
            handle.write(secrets.token_bytes(32))
    return path.read_bytes()


def submission_salt(secret: bytes, notebook: bytes) -> str:
    """The secret a submission's test inputs are drawn with: the same for the same notebook (a regrade
    gives the same grade), another for any other."""
    return hashlib.sha256(secret + hashlib.sha256(notebook).digest()).hexdigest()[:32]


def path_hint(course: Course, student: str, aid: str) -> str:
    """The submitted notebook's path relative to the course root, for messages."""
    return str((course.submitted(student, aid) / f"{aid}.ipynb").relative_to(course.root))


def error_log(course: Course, aid: str, student: str) -> Path:
    """Where the end of nbgrader's log of a submission that could not be graded is kept."""
    return course.build("grading", "errors", aid, f"{student}.log")


def _merge(course: Course, recorder: gradebook.Recorder, result: GradeRecord, sub: _Submission,
           keep_manual: bool) -> GradeRecord:
    """Record a finished job in the gradebook and autograded/; return the record as the class sees it."""
    result.flags = [*result.flags, *sub.flags] + ([f"misnamed notebook: {sub.renamed}"] if sub.renamed else [])
    result.timestamp = sub.exchange.get("timestamp.txt", "").strip()
    if result.status != "graded":
        result.score, result.max_score = 0.0, sub.max_score
        if result.log:  # for the instructor: the detail says why in a line, the log shows it
            log = error_log(course, result.assignment, result.student_id)
            log.parent.mkdir(parents=True, exist_ok=True)
            log.write_text(result.log)
        return result
    try:
        result.score, result.late_submission_penalty = recorder.record(result, keep_manual=keep_manual)
    except Exception as error:  # noqa: BLE001  (after its retries: this row waits for the next run)
        return replace(result, status="error", score=0.0, max_score=sub.max_score, retry=True,
                       detail=f"could not record the grade in the gradebook ({type(error).__name__}: "
                              f"{str(error).splitlines()[0][:200]})")
    target = course.autograded(result.student_id, result.assignment)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(result.autograded)
    for name in EXCHANGE_FILES:  # this submission's, never an earlier one's
        copy = target.parent / name
        if name in sub.exchange:
            copy.write_text(sub.exchange[name])
        elif copy.exists():
            copy.unlink()
    if sub.renamed:
        result.detail += f"; {sub.renamed}"
    return result


def read_rows(path: Path) -> dict[tuple[str, str], dict]:
    """grades.csv's rows by (student, assignment); none from a missing file or an older layout."""
    path = Path(path)
    if not path.is_file():
        return {}
    with path.open(newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != CSV_COLUMNS:  # an older layout is rewritten from this run alone
            return {}
        return {(row["student_id"], row["assignment"]): row for row in reader}


def write_csv(records: list[GradeRecord], path: Path, order: list[str] | None = None,
              stored: dict[tuple[str, str], tuple] | None = None) -> Path:
    """Write `records` to the CSV at `path`, keeping its rows for other (student, assignment) pairs.

    Rows are sorted by assignment (in `order`, the course's, when given) then student. `stored`
    ({key: (score, late penalty, timestamp)}, from gradebook.stored) replaces those columns of
    every graded row it has. The file is replaced at once, so a reader never sees half of it.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = read_rows(path)
    for record in records:
        rows[record.student_id, record.assignment] = {**record.summary(), "flags": "; ".join(record.flags)}
    for key, (score, penalty, stamp) in (stored or {}).items():
        if key in rows and rows[key]["status"] == "graded":
            rows[key].update(score=score, late_submission_penalty=penalty, timestamp=stamp)
    rank = {aid: i for i, aid in enumerate(order or [])}
    keys = sorted(rows, key=lambda key: (rank.get(key[1], len(rank)), key[1], key[0]))
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    writer.writerows(rows[key] for key in keys)
    replace_file(path, text.getvalue().encode())
    return path


def replace_file(path: Path, data: bytes) -> None:
    """Write `data` to `path` at once: a reader (another command, a run that was killed) sees the old file
    or the new one, never half of it."""
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_bytes(data)
    os.replace(partial, path)
