"""`course feedback`: per-student HTML feedback with scores and the visible tests' messages.

For instructors handing back a graded class. nbgrader's generate_feedback does the work; the
course config strips hidden tests from it, and graded kernels run with minimal tracebacks, so
no hidden test shows. Outcomes are per student: one page that cannot be written (a notebook
nbconvert cannot render, an autograded file that is no longer a notebook) costs only its
student, who is listed with a one-line reason and a log of their own under
build/feedback/errors/.

Fast for a class: one nbgrader run per assignment writes every page it can. nbgrader goes on
past a student whose page fails and names them in its log, where their reason is read; a
failure that stops nbgrader's run (its SchemaTooOldError, a database error) leaves the later
students unprocessed, and only those are run again, one nbgrader run each.

Exit status of `course feedback`: 0 when every page was written; 1 when some page could not
be written (the others are; stderr lists each failed student, one line each); 2 when nothing
could be done: no graded submission, nbgrader failing before any page (its configuration, a
gradebook it cannot open), or no page written at all (each failure listed as for 1).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from nbconvert.preprocessors import Preprocessor
from nbformat import NotebookNode
from traitlets import Unicode

from course_utils.course import Course, CourseError
from course_utils.grader.engine.gradebook import db_url_options
from course_utils.grader.engine.lock import course_lock
from course_utils.grader.engine.nbgrader_runner import run_nbgrader

# A Markdown image or HTML <img> whose source is a cell attachment.
ATTACHMENT_REFERENCE = re.compile(r"attachment:([^\s)\"'>]+)")
# nbgrader's log lines (0.9.6, converters/base.py) that say which submission a failure was.
FAILED_PATH = re.compile(r"There was an error processing assignment: (.+)$")
FAILED_STUDENT = re.compile(r"There was an error processing assignment '(.+)' for student '(.+)'$")
# nbgrader's words when it cannot use the gradebook at all: no page can be written.
DATABASE_FAILURE = "There was an error accessing the nbgrader database"
# A record of nbgrader's log starts with `[App | LEVEL] `; its further lines are indented.
LOG_PREFIX = re.compile(r"^\[\w+ \| (\w+)\] ")
TRACEBACK = "Traceback (most recent call last):"
QUALIFIED_EXCEPTION = re.compile(r"^(?:\w+\.)+(\w+: .*)$")  # nbconvert.filters.x.InvalidNotebook: ...
REASON_CHARS = 240


class RestoreAttachments(Preprocessor):
    """Give back a Markdown cell the release's attachments it refers to and has lost.

    The course draws its figures as cell attachments, which nbformat 3 has no place for: a
    submission saved in nbformat 3 (an old tool, `nbformat.convert(nb, 3)`) comes back with
    references to attachments it no longer holds, grades fine, and then nbconvert refuses to
    render its feedback ("missing attachment"). That refusal is nbconvert's, so the course works
    around it here, in the feedback page only: the attachment comes from the release the
    student was given, never from another student. An attachment the release does not hold
    either stays missing, and that student's page fails alone.
    """

    release = Unicode("", help="the released notebook whose attachments a submission may have lost").tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        known = self._release_attachments()
        if known:
            for cell in nb.cells:
                if cell.cell_type not in ("markdown", "raw"):
                    continue
                have = cell.get("attachments") or {}
                lost = {name: known[name] for name in ATTACHMENT_REFERENCE.findall(cell.source)
                        if name not in have and name in known}
                if lost:
                    cell["attachments"] = {**have, **lost}
        return nb, resources

    def _release_attachments(self) -> dict:
        if not hasattr(self, "_known"):
            self._known = {}
            if self.release and Path(self.release).is_file():
                for cell in json.loads(Path(self.release).read_text(encoding="utf-8")).get("cells", []):
                    self._known.update(cell.get("attachments") or {})
        return self._known


@dataclass
class FailedPage:
    """A feedback page that could not be written, and why (one line; the log has the rest)."""
    student: str
    assignment: str
    reason: str
    log: Path


@dataclass
class FeedbackOutcome:
    written: list[Path] = field(default_factory=list)
    failed: list[FailedPage] = field(default_factory=list)


def error_log(course: Course, aid: str, student: str) -> Path:
    """Where nbgrader's log of a page that could not be written is kept."""
    return course.build("feedback", "errors", aid, f"{student}.log")


def feedback(course: Course, ids: list[str], students: list[str] | None = None,
             db_url: str | None = None) -> FeedbackOutcome:
    """Write the feedback page of every graded submission of `ids` (of `students`, default all).

    `db_url`: the gradebook to read scores from (default: the config's). Returns the pages
    written and those that could not be; raises CourseError only when nothing could be done.
    nbgrader copies the submission's timestamp.txt and submission_secret.txt along, which
    `nbgrader release_feedback` needs to file each page where that student's `fetch_feedback` looks.
    """
    outcome = FeedbackOutcome()
    with course_lock(course, "course feedback"):
        asked = False
        for aid in ids:
            graded = [student for student in course.students() if course.autograded(student, aid).is_file()
                      and (not students or student in students)]
            if graded:
                asked = True
                _assignment_feedback(course, aid, graded, students is not None, db_url, outcome)
    if not asked:
        who = f" of {', '.join(students)}" if students else ""
        raise CourseError(f"No graded submissions{who} to give feedback on: run `course autograde` first.")
    if not outcome.written:
        reasons = {page.reason for page in outcome.failed}
        if len(outcome.failed) > 1 and len(reasons) == 1:  # one cause, e.g. a gradebook nbgrader cannot open
            raise CourseError(f"no feedback page could be written ({len(outcome.failed)} graded submissions): "
                              f"{reasons.pop()} [logs: {error_log(course, '*', '*').relative_to(course.root)}]")
        raise CourseError("no feedback page could be written:\n"
                          + "\n".join(describe(page, course.root) for page in outcome.failed))
    return outcome


def describe(page: FailedPage, root: Path) -> str:
    """'  ana (01_x): NotJSONError: ... [log: build/feedback/errors/01_x/ana.log]', the log relative to `root`."""
    return f"  {page.student} ({page.assignment}): {page.reason} [log: {page.log.relative_to(root)}]"


def _assignment_feedback(course: Course, aid: str, graded: list[str], chosen: bool, db_url: str | None,
                         outcome: FeedbackOutcome) -> None:
    options = ["generate_feedback", aid, "--force", *db_url_options(db_url),
               "--HTMLExporter.preprocessors=course_utils.grader.term.feedback.RestoreAttachments",
               f"--RestoreAttachments.release={course.release(aid)}"]
    before = {student: _mtime(course.feedback(student, aid)) for student in graded}

    def written(student: str) -> bool:
        mtime = _mtime(course.feedback(student, aid))
        return mtime is not None and mtime != before[student]

    others = sorted(set(_autograded_students(course)) - set(graded)) if chosen else []
    result = run_nbgrader(course.root, *options, *([f"--CourseDirectory.student_id_exclude={','.join(others)}"]
                                                   if others else []))
    reasons = _failures_by_student(course, aid, graded, result.log)
    done = [student for student in graded if written(student)]
    stopped = not result.ok and not done and not reasons and (
        DATABASE_FAILURE in result.log or "Converting notebook" not in result.log)
    for student in graded:
        if stopped:  # before any page: its reason is every student's, and a run of their own would fail alike
            _record_failed(course, aid, student, result.log, outcome)
        elif student in done:
            _record_written(course, aid, student, outcome)
        elif student in reasons:
            _record_failed(course, aid, student, reasons[student], outcome)
        else:  # nbgrader's run stopped before this student: a run of their own
            alone = run_nbgrader(course.root, *options, f"--student={student}")
            if written(student):
                _record_written(course, aid, student, outcome)
            else:
                _record_failed(course, aid, student, alone.log, outcome)


def _record_written(course: Course, aid: str, student: str, outcome: FeedbackOutcome) -> None:
    outcome.written.append(course.feedback(student, aid))
    error_log(course, aid, student).unlink(missing_ok=True)  # an earlier run's failure, now mended


def _record_failed(course: Course, aid: str, student: str, log: str, outcome: FeedbackOutcome) -> None:
    path = error_log(course, aid, student)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(log)
    outcome.failed.append(FailedPage(student, aid, failure_reason(log), path))


def _mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return None


def _autograded_students(course: Course) -> list[str]:
    folder = course.root / course.coursedir.autograded_directory
    return [p.name for p in folder.iterdir() if p.is_dir()] if folder.is_dir() else []


def _failures_by_student(course: Course, aid: str, graded: list[str], log: str) -> dict[str, str]:
    """{student: their part of nbgrader's log} for each student nbgrader says it failed on.

    nbgrader logs the failed submission's folder, then the traceback; its summary at the end
    names each failed student.
    """
    folders = {str(Path(course.autograded(student, aid).parent).resolve()): student for student in graded}
    named = {match.group(2) for line in log.splitlines() if (match := FAILED_STUDENT.search(line))
             and match.group(1) == aid}
    parts, current = {}, None
    for line in log.splitlines():
        failed = FAILED_PATH.search(line)
        if failed:
            current = folders.get(str(Path(failed.group(1).strip()).resolve()))
            if current is not None:
                parts[current] = []
        elif FAILED_STUDENT.search(line) or ((record := LOG_PREFIX.match(line)) and record.group(1) != "ERROR"):
            current = None
        if current is not None:
            parts[current].append(line)
    return {student: "\n".join(lines) for student, lines in parts.items() if student in named}


def failure_reason(log: str) -> str:
    """One line of nbgrader's `log` that says why it failed: the line naming its last exception, else
    its last error that says more than nbgrader's summary. Whole lines; a long one is cut at its end."""
    lines = log.splitlines()
    reason = _exception_line(lines)
    if not reason:
        errors = [LOG_PREFIX.sub("", line).strip() for line in lines
                  if (match := LOG_PREFIX.match(line)) and match.group(1) in ("ERROR", "CRITICAL")]
        errors = [e for e in errors if e and not e.startswith(("There was an error processing", "Please see"))]
        reason = errors[-1] if errors else "nbgrader gave no reason"
    return reason if len(reason) <= REASON_CHARS else reason[:REASON_CHARS - 3].rstrip() + "..."


def _exception_line(lines: list[str]) -> str:
    """The `Name: message` line of the last traceback in `lines`, the module path left out ("" if none).

    Python prints it at the traceback's own indent, after the last frame (`File ...` lines two
    spaces in, their code four); a message of several lines goes on at that indent too.
    """
    starts = [i for i, line in enumerate(lines) if line.rstrip().endswith(TRACEBACK)]
    if not starts:
        return ""
    block = []
    for line in lines[starts[-1] + 1:]:
        if LOG_PREFIX.match(line):
            break
        block.append(line)
    frames = [i for i, line in enumerate(block) if line.lstrip().startswith("File ")]
    if not frames:
        return ""
    base = len(block[frames[0]]) - len(block[frames[0]].lstrip()) - 2
    for line in block[frames[-1] + 1:]:  # past the last frame's code: the first line back at the base indent
        if line.strip() and len(line) - len(line.lstrip()) <= base:
            text = line.strip()
            qualified = QUALIFIED_EXCEPTION.match(text)
            return qualified.group(1) if qualified else text
    return ""
