"""nbgrader's gradebook, read and written through nbgrader's own API.

Grading jobs run with private SQLite gradebooks; only the process that runs
`pipeline.autograde` writes the real gradebook, one finished job at a time, so SQLite's
single-writer rule holds and a PostgreSQL gradebook sees ordinary short transactions.
What it writes is what nbgrader's own autograde leaves there (the formgrader, `nbgrader
export` and the exchange's feedback read it): the submission's timestamp, each cell's
auto score and whether it needs manual grading, automatic comments, late penalties from the
course's `AssignLatePenalties.plugin_class`, while manual scores, manual comments and extra
credit from the formgrader stay unless the instructor asks for them to be reset.
"""
from __future__ import annotations

import datetime
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from nbgrader.api import Gradebook
    from traitlets.config import Config

    from course_utils.course import Course
    from course_utils.grader.engine.records import GradeRecord

T = TypeVar("T")

# nbgrader.api is imported where a gradebook is opened: importing the nbgrader package loads
# its Jupyter server extensions (seconds), which `course --help` and the CLI's parser must not pay.


@dataclass
class AutoGrades:
    """What nbgrader's autograde stored for one submission in a job's private gradebook."""
    score: float
    max_score: float
    cells: dict[str, tuple[float, float]]           # grade cell -> (auto score, max); 0 while awaiting a grader
    manual: list[str] = field(default_factory=list)  # grade cells without an auto score: a person grades them
    comments: dict[str, str | None] = field(default_factory=dict)  # answer/task cell -> nbgrader's auto comment


@contextmanager
def _without_autoflush_warning() -> Iterator[None]:
    """nbgrader's own update_or_create_submission trips a harmless SQLAlchemy autoflush warning."""
    from sqlalchemy.exc import SAWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SAWarning)
        yield


@contextmanager
def opened(db_url: str, course_id: str) -> Iterator[Gradebook]:
    from nbgrader.api import Gradebook

    with _without_autoflush_warning(), Gradebook(db_url, course_id) as gb:
        yield gb


def max_score(db_url: str, course_id: str, aid: str) -> float:
    with opened(db_url, course_id) as gb:
        return float(gb.find_assignment(aid).max_score)


def has_assignment(db_url: str, course_id: str, aid: str) -> bool:
    from nbgrader.api import MissingEntry

    with opened(db_url, course_id) as gb:
        try:
            gb.find_assignment(aid)
        except MissingEntry:
            return False
        return True


def roster(db_url: str, course_id: str) -> list[str]:
    """Every student the gradebook knows (added in the formgrader, `nbgrader db student add`, or graded)."""
    with opened(db_url, course_id) as gb:
        return sorted(student.id for student in gb.students)


def read_auto_grades(db_url: str, course_id: str, aid: str, student: str) -> AutoGrades | None:
    """What a job's autograde stored for `student`'s `aid`, or None if it stored no submission."""
    from nbgrader.api import MissingEntry

    with opened(db_url, course_id) as gb:
        try:
            submission = gb.find_submission(aid, student)
        except MissingEntry:
            return None
        cells, manual, comments = {}, [], {}
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                cells[grade.name] = (float(grade.auto_score or 0.0), float(grade.max_score))
                if grade.auto_score is None:
                    manual.append(grade.name)
            for comment in notebook.comments:
                comments[comment.name] = comment.auto_comment
        return AutoGrades(float(submission.score), float(submission.max_score), cells, sorted(manual), comments)


def parse_timestamp(text: str) -> datetime.datetime:
    """A timestamp.txt's text as nbgrader reads it (naive UTC); ValueError if it is not a time."""
    from nbgrader.utils import parse_utc

    return parse_utc(text.strip())


class Recorder:
    """The gradebook a run stores its finished jobs in, opened once for the run (a context manager).

    Opening nbgrader's Gradebook makes a new SQLAlchemy engine, whose cache of compiled statements
    starts empty, and checks every table: opened per job, storing a job took 0.35 s of the grader's
    own time, 0.20 s with one connection (a profile of 33 jobs). A record that fails closes it, so
    that its next attempt (`retried`) opens a new connection: a PostgreSQL server restarting in the
    middle of a run costs a retry, as before.
    Between records no transaction is open, so the formgrader and other readers are never held up.
    `config` is the course's nbgrader_config.py, for the late-penalty plugin.
    """

    def __init__(self, db_url: str, course_id: str, config: Config | None = None) -> None:
        from nbgrader.preprocessors import AssignLatePenalties

        self.db_url, self.course_id = db_url, course_id
        self._assigner = AssignLatePenalties(config=config)
        self._assigner.init_plugin()
        self._gb: Gradebook | None = None

    def __enter__(self) -> Recorder:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self._gb is not None:
            gb, self._gb = self._gb, None
            with suppress(Exception):  # a connection already broken has nothing left to close
                gb.close()

    def record(self, graded: GradeRecord, keep_manual: bool = True) -> tuple[float, float]:
        """Store a graded job as nbgrader's autograde would have; return (score, late penalty) as stored.

        Like nbgrader's SaveAutoGrades, a cell without an auto score, or one a person has already
        graded, needs (re)grading by hand. A held submission (`GradeRecord.held`: a flag about what
        the student did) needs it in every cell, and its notebooks are flagged, so that the
        formgrader lists it for a person to look at and `course export` leaves it out until they
        unflag it. `keep_manual=False` first clears manual scores, manual comments and extra credit.
        The late penalty comes from the plugin of nbgrader's AssignLatePenalties as the course's
        config sets it, applied as that preprocessor applies it, to the score including any manual
        grades. Tried again (`retried`) on a new connection when it fails.
        """
        return retried(lambda: self._record_once(graded, keep_manual))

    def _record_once(self, graded: GradeRecord, keep_manual: bool) -> tuple[float, float]:
        from nbgrader.api import Gradebook

        timestamp = parse_timestamp(graded.timestamp) if graded.timestamp else None
        manual = set(graded.manual)
        try:
            if self._gb is None:
                self._gb = Gradebook(self.db_url, self.course_id)
            gb = self._gb
            with _without_autoflush_warning():
                gb.update_or_create_student(graded.student_id)
                submission = gb.update_or_create_submission(graded.assignment, graded.student_id)
                submission.timestamp = timestamp
                for notebook in submission.notebooks:
                    notebook.flagged = graded.held
                    for grade in notebook.grades:
                        if not keep_manual:
                            grade.manual_score = grade.extra_credit = None
                        got, _ = graded.cells.get(grade.name, (0.0, 0.0))
                        grade.auto_score = None if grade.name in manual else got
                        grade.needs_manual_grade = graded.held or grade.manual_score is not None \
                            or grade.auto_score is None
                    for comment in notebook.comments:
                        if not keep_manual:
                            comment.manual_comment = None
                        comment.auto_comment = graded.comments.get(comment.name)
                gb.db.commit()
                self._assign_late_penalties(gb, submission)
                gb.db.commit()
                return float(submission.score), float(submission.late_submission_penalty or 0.0)
        except BaseException:
            self.close()  # whatever the session holds is undone; the next attempt starts afresh
            raise

    def _assign_late_penalties(self, gb: Gradebook, submission: object) -> None:
        """nbgrader's AssignLatePenalties, per notebook of `submission`, with its own plugin and clamp."""
        seconds_late = submission.total_seconds_late
        for notebook in submission.notebooks:
            notebook.late_submission_penalty = None
            if seconds_late > 0:
                gb.db.refresh(notebook)  # its score column, after the grades above
                penalty = self._assigner.plugin_inst.late_submission_penalty(submission.student.id, notebook.score,
                                                                            seconds_late)
                if penalty is not None:
                    # nbgrader's own clamp (0 <= penalty <= score), so the numbers match its autograde.
                    notebook.late_submission_penalty = self._assigner._check_late_penalty(notebook, penalty)


def stored(db_url: str, course_id: str, keys: list[tuple[str, str]]) -> dict[tuple[str, str], tuple]:
    """{(student, aid): (score, late penalty, timestamp ISO or "")} for the submissions the gradebook holds.

    The formgrader's manual grades change scores after autograding: reports read them here.
    """
    from nbgrader.api import MissingEntry

    found = {}
    with opened(db_url, course_id) as gb:
        for student, aid in keys:
            try:
                submission = gb.find_submission(aid, student)
            except MissingEntry:
                continue
            stamp = submission.timestamp.isoformat() if submission.timestamp else ""
            found[student, aid] = (float(submission.score), float(submission.late_submission_penalty or 0.0), stamp)
    return found


def ensure_students(db_url: str, course_id: str, students: list[str]) -> None:
    """Put each of `students` on the gradebook's roster (one connection for the class)."""
    with opened(db_url, course_id) as gb:
        for student in students:
            gb.update_or_create_student(student)


def retried(action: Callable[[], T], attempts: int = 3, pause: float = 1.0) -> T:
    """`action()`, tried again after a pause when it fails, `attempts` times in all.

    For a gradebook that is briefly unreachable (a PostgreSQL server restarting, a dropped
    connection, an SQLite file the formgrader holds locked). nbgrader turns SQLAlchemy's errors
    into its own InvalidEntry, so which failures pass cannot be told by their type: every failure
    is tried again, which costs a few seconds where it was not transient. A loop of our own
    rather than `tenacity`: a few lines do not earn a dependency.
    """
    for attempt in range(1, attempts + 1):
        try:
            return action()
        except Exception:  # noqa: BLE001  (re-raised after the last attempt)
            if attempt == attempts:
                raise
            time.sleep(pause * 3 ** (attempt - 1))
    raise AssertionError("unreachable")


# Which gradebook the course was last graded into, for the commands that read it afterwards.
GRADED_INTO = ("grading", "gradebook-url")


def shown_url(db_url: str) -> str:
    """`db_url` as it may be printed and stored: the password hidden, an SQLite path made absolute.

    nbgrader opens a relative SQLite path from the course root, where every course command runs it.
    """
    import re

    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(db_url)
    except ArgumentError:  # not a URL SQLAlchemy reads: hide anything between "user:" and "@" all the same
        return re.sub(r"(//[^:/@]*):[^@/]*@", r"\1:***@", db_url)
    return url.render_as_string(hide_password=True)


def _absolute(course: Course, db_url: str) -> str:
    import os

    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        url = make_url(db_url)
    except ArgumentError:
        return db_url
    if url.drivername.startswith("sqlite") and url.database and url.database != ":memory:" \
            and not url.database.startswith("file:") and not os.path.isabs(url.database):
        return url.set(database=str(course.root / url.database)).render_as_string(hide_password=False)
    return db_url


def remember_url(course: Course, db_url: str) -> None:
    """Record `db_url` (its password hidden) as the gradebook `course` was graded into."""
    path = course.build(*GRADED_INTO)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(shown_url(_absolute(course, db_url)) + "\n")


def url_mismatch(course: Course, db_url: str | None = None) -> str | None:
    """What to tell the instructor when the gradebook a command reads (`db_url`, default the
    config's) is not the one `course autograde` last graded into; None when they agree or no run
    recorded one."""
    path = course.build(*GRADED_INTO)
    try:
        graded = path.read_text().strip()
    except OSError:
        return None
    reads = shown_url(_absolute(course, db_url or course.db_url))
    if not graded or graded == reads:
        return None
    return (f"the course was graded into {graded}; this command reads {reads}: pass --db-url with the URL "
            "graded into, or set c.CourseDirectory.db_url in nbgrader_config.py to it, so that every command "
            "reads that one gradebook")


def warn_other_gradebook(course: Course, db_url: str | None, command: str) -> None:
    """For `course feedback`, `export` and `report`: warn on stderr when the gradebook they read is not
    the one the course was last graded into."""
    import sys

    message = url_mismatch(course, db_url)
    if message:
        print(f"course {command}: warning: {message}", file=sys.stderr, flush=True)


def db_url_options(db_url: str | None) -> list[str]:
    """nbgrader's own option for the gradebook at `db_url`, for an nbgrader run (none: the config's)."""
    return [f"--CourseDirectory.db_url={db_url}"] if db_url else []
