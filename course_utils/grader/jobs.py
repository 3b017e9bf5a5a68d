"""One grading job: one student's submission of one assignment, graded in private.

A job carries everything it needs as values: the submitted notebook's bytes, the
assignment's template gradebook (nbgrader's SQLite file holding just that assignment) as
bytes, and the text of the course's nbgrader_config.py. A worker therefore needs this
package installed and nothing of the course folder, which is what lets a Dask worker on
another machine grade without a shared file system. The worker makes a private course
root in its own temporary folder, runs `nbgrader autograde` there in its own process group
under time and memory limits, with kernels started by `course_utils.grader.sandbox`, and
returns a `GradeRecord`. Jobs share nothing; only the caller writes to the real gradebook.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from course_utils.course import load_coursedir
from course_utils.grader.gradebook import read_auto_grades
from course_utils.grader.nbgrader_runner import (
    RELOCATED_CONFIG,
    launch,
    tool_environment,
)
from course_utils.grader.records import GradeRecord
from course_utils.grader.sanitize import BrokenSubmission, prepare


@dataclass(frozen=True)
class Limits:
    """What one student's submission may use while it is graded."""
    cell_seconds: int = 120       # one cell (the grader's timeout per cell)
    job_seconds: int = 600        # the whole submission, kernel start to last test
    memory_bytes: int = 4 << 30   # data memory of the student's kernel
    threads: int = 0              # CPU threads of the student's kernel (0: torch's default, all cores)


@dataclass
class GradeJob:
    """One (student, assignment) to grade, with everything grading it needs carried as values."""
    assignment: str
    student: str
    notebook: bytes               # the submitted notebook, as handed in
    gradebook: bytes              # an SQLite gradebook holding only this assignment
    config: str                   # the course's nbgrader_config.py, verbatim
    limits: Limits = field(default_factory=Limits)
    work_dir: str | None = None   # where the private root is made; None: the system's temporary folder


# Appended to the course's own config in the private root (after RELOCATED_CONFIG): the
# course's preprocessor lists get the grader's repairs and limits.
JOB_CONFIG = '''
from course_utils.grader.preprocessors import configure_autograde as _configure_autograde
_configure_autograde(c, cell_timeout={cell_timeout})
'''


def _kernelspec(folder: Path) -> None:
    spec = folder / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "course_utils.grader.sandbox", "-f", "{connection_file}"],
        "display_name": "Python 3 (graded)", "language": "python",
        "metadata": {"debugger": False}}))


KERNEL_DIED = ("the notebook's kernel died while running it (os._exit, sys.exit at top level, a crash, "
               "or more memory than allowed); no test after that point could run")


def explain_failure(log: str) -> str:
    """One line for the student saying why nbgrader could not grade their notebook."""
    text = log.lower()
    if "kernel died" in text or "deadkernelerror" in text or "kernel didn't respond" in text:
        return KERNEL_DIED
    if "celltimeouterror" in text or "timed out" in text:
        return "a cell ran longer than the per-cell time limit (an endless loop?)"
    lines = [ln for ln in log.strip().splitlines() if "ERROR" in ln]
    return lines[-1][-300:] if lines else "nbgrader could not grade it"


def _report(lines: Iterable[str]) -> Iterator[tuple[str, object]]:
    for line in lines:
        try:
            item = json.loads(line)
            yield item["kind"], item["detail"]
        except (json.JSONDecodeError, KeyError, TypeError):
            continue


def read_flags(report_lines: Iterable[str], kernel_ran: bool = True) -> set[str]:
    """The flags a job's report (JSON lines from the sandbox, the integrity watch and the grader's
    preprocessors) raises; unreadable lines are skipped. `kernel_ran`: nbgrader got as far as
    running the notebook, so a kernel that did not report its start was not the sandbox's."""
    flags, started = set(), False
    for kind, detail in _report(report_lines):
        if kind == "read-outside":
            flags.add(f"file access: read {detail}")
        elif kind == "tamper":
            flags.add(f"tampering: {detail}")
        elif kind == "outlived":
            flags.add(f"processes: {detail} left running by the notebook, ended with the job")
        elif kind == "restored":
            flags.add(f"edited graded cell: {detail}")
        elif kind == "started":
            started = True
        elif kind == "isolation":
            flags.add(f"not isolated: {detail}")
    if kernel_ran and not started:
        flags.add("not isolated: the kernel did not start through course_utils.grader.sandbox")
    return flags


def unverified_cells(report_lines: Iterable[str], executed: Iterable[int]) -> list[int]:
    """Cells (execution counts) that ran but whose integrity check never reported.

    The last cell that ran is left out: a kernel that died in it (os._exit, a crash) reports
    nothing, and that costs its author already.
    """
    ran = sorted(set(executed))
    verified = {detail for kind, detail in _report(report_lines) if kind == "verified"}
    return [count for count in ran[:-1] if count not in verified]


def _executed(notebook_json: str) -> list[int]:
    cells = json.loads(notebook_json).get("cells", [])
    return [c["execution_count"] for c in cells if c.get("cell_type") == "code" and c.get("execution_count")]


def provided_cell_hashes(gradebook: bytes) -> list[str]:
    """sha256 of the source of every locked cell in a template gradebook (what the course provides)."""
    import sqlite3

    with tempfile.NamedTemporaryFile(suffix=".db") as copy:
        copy.write(gradebook)
        copy.flush()
        with sqlite3.connect(copy.name) as db:
            rows = db.execute("SELECT source FROM source_cell WHERE locked").fetchall()
    return sorted({hashlib.sha256((source or "").encode()).hexdigest() for (source,) in rows})


def _kernel_home(private: Path) -> Path:
    """The graded kernel's home: private to the job, with matplotlib's font cache copied in.

    Without the copy every kernel would rebuild the cache (seconds) in its empty home.
    """
    home = private / "home"
    cache = home / ".cache" / "matplotlib"
    cache.mkdir(parents=True)
    source = Path(os.environ.get("MPLCONFIGDIR") or Path.home() / ".cache" / "matplotlib")
    for font_list in source.glob("fontlist-*.json") if source.is_dir() else []:
        shutil.copy(font_list, cache / font_list.name)
    return home


def run_job(job: GradeJob) -> GradeRecord:
    """Grade one submission in a private course root; never raises for a bad submission.

    A kernel that dies is graded once more before it costs the student: an overloaded machine
    can lose a kernel (CI once lost an honest student's, with nothing in its notebook to blame).
    A notebook that kills its own kernel does so again, and only costs the grader one more run.
    """
    record = _run_job_once(job)
    if record.status == "error" and record.detail == KERNEL_DIED:
        first_seconds = record.seconds
        record = _run_job_once(job)
        record.seconds += first_seconds
        if record.status == "graded":
            record.detail += "; graded on a second run (the first run's kernel died)"
    return record


def _run_job_once(job: GradeJob) -> GradeRecord:
    start = time.perf_counter()
    record = GradeRecord(job.student, job.assignment, "error")
    try:
        prepared = prepare(job.notebook, f"{job.assignment}.ipynb")
    except BrokenSubmission as error:
        record.detail = str(error)
        return record
    except Exception as error:  # noqa: BLE001
        record.detail = f"could not read the submission ({type(error).__name__}: {error})"
        return record
    record.flags = list(prepared.flags)
    if job.work_dir:
        Path(job.work_dir).mkdir(parents=True, exist_ok=True)
    private = Path(tempfile.mkdtemp(prefix=f"{job.student}-{job.assignment}-", dir=job.work_dir))
    try:
        os.chmod(private, 0o700)
        _run_in(private, job, prepared.notebook_json, prepared.notes, record)
    except Exception as error:  # noqa: BLE001  (one job's surprise must not stop the class)
        record.status = "error"
        record.detail = f"internal grading error ({type(error).__name__}: {error}); please report it"
    finally:
        shutil.rmtree(private, ignore_errors=True)
        record.seconds = time.perf_counter() - start
    return record


def _run_in(private: Path, job: GradeJob, notebook_json: str, notes: list[str], record: GradeRecord) -> None:
    aid, student = job.assignment, job.student
    (private / "nbgrader_config.py").write_text(
        job.config + RELOCATED_CONFIG + JOB_CONFIG.format(cell_timeout=job.limits.cell_seconds))
    (private / "gradebook.db").write_bytes(job.gradebook)
    coursedir = load_coursedir(private)
    submitted = Path(coursedir.format_path(coursedir.submitted_directory, student, aid)) / f"{aid}.ipynb"
    submitted.parent.mkdir(parents=True)
    submitted.write_text(notebook_json)
    _kernelspec(private / "jupyter")
    report = private / "sandbox-report.jsonl"
    env = tool_environment()
    env.update({
        "JUPYTER_PATH": str(private / "jupyter"),
        "COURSE_SANDBOX_REPORT": str(report),
        "COURSE_SANDBOX_HOME": str(_kernel_home(private)),
        "COURSE_SANDBOX_CELLS": json.dumps(provided_cell_hashes(job.gradebook)),
        "COURSE_SANDBOX_MEMORY_BYTES": str(job.limits.memory_bytes),
        "COURSE_SANDBOX_CPU_SECONDS": str(job.limits.job_seconds),
    })
    if job.limits.threads:
        # N kernels at once that each spread over every core fight over them; torch (and
        # the BLAS under it) read these when the kernel imports them.
        env.update({"OMP_NUM_THREADS": str(job.limits.threads), "MKL_NUM_THREADS": str(job.limits.threads)})
    result = launch(["autograde", aid, f"--student={student}", "--create", "--force"], private, env,
                    timeout=job.limits.job_seconds)
    log = result.log
    record.log = log[-5000:]
    lines = report.read_text().splitlines() if report.is_file() else []
    record.flags = sorted(set(record.flags) | read_flags(lines, kernel_ran=result.ok))
    if result.timed_out:
        record.detail = (f"grading took longer than {job.limits.job_seconds} s and was stopped "
                         "(an endless loop, or very slow code?)")
        return
    graded = Path(coursedir.format_path(coursedir.autograded_directory, student, aid)) / f"{aid}.ipynb"
    scores = read_auto_grades(coursedir.db_url, coursedir.course_id, aid, student)
    if not result.ok or scores is None or not graded.is_file():
        record.detail = explain_failure(log)
        return
    record.status = "graded"
    record.autograded = graded.read_text()
    skipped = unverified_cells(lines, _executed(record.autograded))
    if skipped:
        record.flags.append(f"tampering: the integrity checks stopped reporting from cell [{skipped[0]}] on "
                            "(switched off?)")
    record.score, record.max_score, record.cells = scores.score, scores.max_score, scores.cells
    record.manual, record.comments = scores.manual, scores.comments
    failed = sorted(name for name, (got, most) in record.cells.items() if got < most and name not in scores.manual)
    record.detail = ("failed: " + ", ".join(failed)) if failed else "all tests passed"
    if scores.manual:
        record.detail += "; for a grader to mark: " + ", ".join(scores.manual)
    if notes:
        record.detail += "; " + "; ".join(notes)
