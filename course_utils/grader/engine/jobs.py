"""One grading job: one student's submission of one assignment, graded in private.

A job carries everything it needs as values: the submitted notebook's bytes, the
assignment's template gradebook (nbgrader's SQLite file holding just that assignment) and
released notebook as bytes, and the text of the course's nbgrader_config.py. A worker therefore
needs this package installed and nothing of the course folder, which is what lets a Dask worker
on another machine grade without a shared file system. The worker reads the student's source
(`screen`), makes a private course root in its own temporary folder, runs `nbgrader autograde`
there in its own process group under time limits, with kernels started by
`course_utils.grader.judge.sandbox` under storage limits and in a cgroup of the job's own (memory,
processes and CPU for all the kernel's processes together) where the machine allows, and returns a
`GradeRecord`. Jobs share nothing; only the caller writes to the real gradebook.
"""
from __future__ import annotations

import atexit
import functools
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from course_utils.course import load_coursedir
from course_utils.grader.judge import sandbox
from course_utils.grader.judge.sandbox import cgroups
from course_utils.grader.engine.gradebook import read_auto_grades
from course_utils.grader.engine.nbgrader_runner import (
    RELOCATED_CONFIG,
    die_with_parent,
    launch,
    tool_environment,
)
from course_utils.grader.engine.records import GradeRecord
from course_utils.grader.judge.sanitize import BrokenSubmission, prepare
from course_utils.grader.judge.screen import Context, context, screen


@dataclass(frozen=True)
class Limits:
    """What one student's submission may use while it is graded."""
    cell_seconds: int = 120       # one cell (the grader's timeout per cell)
    job_seconds: int = 600        # the whole submission, kernel start to last test
    memory_bytes: int = 4 << 30   # memory of the student's kernel and every process it starts, together
    processes: int = 512          # processes and threads of the kernel and what it starts, together
    threads: int = 0              # CPU threads of the student's kernel (0: torch's default, all cores);
    #                               with a cgroup, also the cores its processes may use together
    folder_bytes: int = sandbox.FOLDER_BYTES  # what the kernel may write into the notebook's folder
    tmp_bytes: int = sandbox.TMP_BYTES        # ... into /tmp, and into its home folder
    shm_bytes: int = sandbox.SHM_BYTES        # ... into /dev/shm (shared memory)

    def storage(self, place: str) -> str:
        """What a student reads when their notebook filled `place` (the sandbox's name for it)."""
        size, option, name = {"folder": (self.folder_bytes, "--folder-mb", "the notebook's folder"),
                              "tmp": (self.tmp_bytes, "--tmp-mb", "/tmp"),
                              "home": (self.tmp_bytes, "--tmp-mb", "the home folder"),
                              "shm": (self.shm_bytes, "--shm-mb", "/dev/shm")}.get(place, (0, "", place))
        return f"the notebook filled {name} ({size >> 20} MB, course autograde {option}); writes after that failed"

    def memory_reached(self, kernel_died: bool = False) -> str:
        """What a student reads when their notebook's processes together reached the job's memory limit."""
        limit = (f"the job's memory limit ({self.memory_bytes / 2**30:g} GB for all of the notebook's processes "
                 "together, course autograde --memory-gb)")
        if kernel_died:
            return f"the notebook's kernel was stopped at {limit}; no test after that point could run"
        return f"the notebook's processes reached {limit}: Linux stopped the largest"

    def processes_reached(self) -> str:
        """What a student reads when their notebook started as many processes and threads as its job may."""
        return (f"the notebook reached the job's limit of {self.processes} processes and threads (course "
                "autograde --processes); starting more failed")

    def reached(self, usage: cgroups.Usage | None) -> list[str]:
        """What the job's cgroup says its notebook reached, for the student's detail."""
        if usage is None:
            return []
        return ([self.memory_reached()] if usage.oom_kills else []) + \
            ([self.processes_reached()] if usage.processes_refused else [])


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
    release: bytes = b""          # the released notebook (what the student started from), for the source screen
    salt: str = ""                # hex: the secret its test inputs are drawn with (pipeline.submission_salt)


# Appended to the course's own config in the private root (after RELOCATED_CONFIG): the
# course's preprocessor lists get the grader's repairs and limits.
JOB_CONFIG = '''
from course_utils.grader.judge.preprocessors import configure_autograde as _configure_autograde
_configure_autograde(c, cell_timeout={cell_timeout}, sockets={sockets!r}, salt={salt!r})
'''


def _kernelspec(folder: Path) -> None:
    spec = folder / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "course_utils.grader.judge.sandbox", "-f", "{connection_file}"],
        "display_name": "Python 3 (graded)", "language": "python",
        "metadata": {"debugger": False}}))


# A flag on every row of a job whose memory and processes were limited per process only (no cgroup):
# the machine's doing, like `not isolated`, so it does not hold the grade.
NOT_LIMITED = "not limited per job"


def not_limited(why: str) -> str:
    """The flag of a job that no cgroup held, saying why and what held it instead (one flag: grades.csv
    joins a row's flags with "; ")."""
    return (f"{NOT_LIMITED}: {why.replace('; ', ', ')} (memory and CPU time are limited per process, "
            "processes per sandbox)")

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


@dataclass
class Report:
    """What a job's report (JSON lines from the sandbox and the grader's preprocessors) says."""
    flags: set[str] = field(default_factory=set)   # for the instructor
    full: list[str] = field(default_factory=list)  # places the notebook filled (the sandbox's names)
    notes: list[str] = field(default_factory=list)  # other limits the notebook reached, in words


def read_report(report_lines: Iterable[str], kernel_ran: bool = True) -> Report:
    """The flags and filled places in a job's report; unreadable lines are skipped. `kernel_ran`:
    nbgrader got as far as running the notebook, so a kernel that did not report its start was
    not the sandbox's. Processes are counted by pid, each once, whoever ended them."""
    report, started, ended = Report(), False, set()
    for kind, detail in _report(report_lines):
        if kind == "outlived":
            ended |= {str(pid) for pid in (detail if isinstance(detail, list) else [detail])}
        elif kind == "restored":
            report.flags.add(f"edited graded cell: {detail}")
        elif kind == "started":
            started = True
        elif kind == "isolation":
            report.flags.add(f"not isolated: {detail}")
        elif kind == "limits":
            report.flags.add(not_limited(str(detail)))
        elif kind == "storage" and detail not in report.full:
            report.full.append(str(detail))
        elif kind in ("output", "timeout"):
            note = _limit_note(kind, detail)
            if note not in report.notes:
                report.notes.append(note)
    if ended:
        count = len(ended)
        report.flags.add(f"processes: {count} left running by the notebook, ended with the job")
    if kernel_ran and not started:
        report.flags.add("not isolated: the kernel did not start through course_utils.grader.judge.sandbox")
    return report


def _limit_note(kind: str, detail: object) -> str:
    """What the row's detail says of a limit a grading preprocessor reported (see preprocessors/execute_verdicts)."""
    if kind == "output":
        limit = detail if isinstance(detail, dict) else {}
        if isinstance(limit.get("chars"), int):
            return f"a cell printed more than {limit['chars']} characters: the grader kept the first {limit['chars']} of its output"
        if isinstance(limit.get("message_bytes"), int):
            return (f"a cell printed more than {limit['message_bytes'] >> 20} MB at once, which the grader refuses: "
                    "its output was cut")
        return "a cell printed more than the grader keeps: its output was cut"
    return f"the test {detail} ran longer than the time limit per cell (course autograde --cell-timeout)"


def gradebook_cells(gradebook: bytes) -> tuple[list[tuple[str, bool]], list[str]]:
    """Of a template gradebook: (source, is a test) of every locked cell, what the course provides;
    and the names of its answer cells."""
    import sqlite3

    with tempfile.NamedTemporaryFile(suffix=".db") as copy:
        copy.write(gradebook)
        copy.flush()
        with sqlite3.connect(copy.name) as db:
            # nbgrader's schema, read without nbgrader.api: opening a Gradebook runs alembic (seconds).
            rows = db.execute("SELECT s.source, EXISTS (SELECT 1 FROM base_cell b JOIN grade_cells g ON g.id = b.id "
                              "WHERE b.name = s.name AND b.notebook_id = s.notebook_id) "
                              "FROM source_cell s WHERE s.locked").fetchall()
            answers = db.execute("SELECT b.name FROM base_cell b JOIN solution_cells c ON c.id = b.id").fetchall()
    return [(source or "", bool(test)) for source, test in rows], sorted(name for (name,) in answers)


@functools.lru_cache(maxsize=8)
def _screen_context(release: bytes, gradebook: bytes, assignment: str) -> Context:
    """The screen's context of one assignment: the same for every submission a worker grades of it."""
    from course_utils.ipynb import reads

    locked, exercises = gradebook_cells(gradebook)
    return context(reads(release.decode()), locked, assignment, exercises)


def screen_flags(job: GradeJob, notebook_json: str) -> list[str]:
    """The source screen's findings on the submission, as flags (none without the release to compare with)."""
    from course_utils.ipynb import reads

    if not job.release:
        return []
    try:
        ctx = _screen_context(job.release, job.gradebook, job.assignment)
        return [finding.flag for finding in screen(reads(notebook_json), ctx)]
    except Exception as error:  # noqa: BLE001  (held for a person rather than lost for the class)
        return [f"source: not screened ({type(error).__name__}: {error}); please report it"]


def _kernel_home(private: Path) -> Path:
    """The graded kernel's home where it cannot be isolated: private to the job (the sandbox makes its own)."""
    home = private / "home"
    home.mkdir()
    return home


_FONTS_BUILT = threading.Lock()


def _font_cache() -> str:
    """matplotlib's font cache, which each kernel copies in (else every kernel rebuilds it: seconds).

    A kernel cannot write back to the grader's cache, so where the grader's account has none yet
    (a fresh account on a hub) it is built here, once.
    """
    folder = Path(os.environ.get("MPLCONFIGDIR") or Path.home() / ".cache" / "matplotlib")
    with _FONTS_BUILT:
        if not list(folder.glob("fontlist-*.json")):
            subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], capture_output=True,
                           timeout=300, env=tool_environment())
    return str(folder)


def job_cgroup(limits: Limits) -> tuple[cgroups.JobCgroup | None, str]:
    """The cgroup a kernel's sandbox runs in, with the job's limits; or None and why there is none.

    COURSE_GRADER_CGROUPS=0 switches them off (every row then says so).
    """
    if os.environ.get("COURSE_GRADER_CGROUPS", "1") == "0":
        return None, "per-job cgroups are switched off (COURSE_GRADER_CGROUPS=0)"
    return cgroups.create(limits.memory_bytes, limits.processes, limits.threads)


class _Prestarted:
    """A sandbox started for a worker's next job (sandbox.prestart): its launcher, hand-over folder and cgroup."""

    def __init__(self, env: dict[str, str], folder_name: str, limits: Limits) -> None:
        self.key = sandbox.prestart_key(env, folder_name)
        self.thread = threading.current_thread()   # the only thread whose next job may take it
        # Private to the grader (mkdtemp: 0700) and short: the hand-over socket's path has at most 107 bytes.
        self.handover = tempfile.mkdtemp(prefix="ag-pre-")
        self.cgroup, self.unlimited = job_cgroup(limits)   # the job that takes it runs in it
        env = {**env, sandbox.REPORT: os.path.join(self.handover, "report.jsonl")}
        if self.cgroup is not None:
            env[cgroups.CGROUP] = self.cgroup.description
        with open(os.path.join(self.handover, "kernel.log"), "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "course_utils.grader.judge.sandbox", "--prestart", self.handover, folder_name],
                env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                preexec_fn=die_with_parent)  # this worker thread gone: no job will take it
        _PRESTARTED.add(self)

    def end(self) -> None:
        """Stop it if it still runs (never taken, or its job is over); remove its cgroup and hand-over folder."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.cgroup is not None:
            self.cgroup.remove()
        shutil.rmtree(self.handover, ignore_errors=True)
        _PRESTARTED.discard(self)


_PRESTARTED: set[_Prestarted] = set()   # every one this process started and has not ended
_NEXT_KERNEL = threading.local()          # each worker thread's one pre-started sandbox, for its next job


@atexit.register
def end_prestarted() -> None:
    """End every pre-started sandbox that no job took (the last job's, or a run that stopped)."""
    for prestarted in list(_PRESTARTED):
        prestarted.end()


def end_orphaned_prestarted() -> None:
    """End the pre-started sandboxes of worker threads that have ended (a local run's pool, once it is
    done): no job can take them, and each holds an imported torch until the grader exits."""
    for prestarted in list(_PRESTARTED):
        if not prestarted.thread.is_alive():
            prestarted.end()


@functools.cache
def _bwrap_isolates() -> bool:
    """Whether this worker has a bubblewrap to isolate with: asked once, not per job (it runs `bwrap --version`)."""
    return sandbox.find_bwrap()[0] is not None


def _kernel_for(env: dict[str, str], folder_name: str, next_folder: str | None,
                limits: Limits | None = None) -> _Prestarted | None:
    """The sandbox this worker pre-started for this job, if it fits it exactly (else it is ended); and,
    while this job runs, one is started for the worker's next job, whose notebook folder is `next_folder`
    (None: no job is left to take it, and its bwrap and torch import, seconds of CPU, would be spent for
    nothing). Only where bubblewrap isolates: the report then says why not, from the job's own cold start."""
    if os.environ.get("COURSE_GRADER_PRESTART", "1") == "0" or not hasattr(os, "fork") or not _bwrap_isolates():
        return None
    kernel_env = {**env, "NBGRADER_EXECUTION": "autograde"}   # what nbgrader's autograde adds for its kernel
    taken = getattr(_NEXT_KERNEL, "sandbox", None)
    if taken is not None and (taken.key != sandbox.prestart_key(kernel_env, folder_name) or taken.proc.poll() is not None):
        taken.end()
        taken = None
    _NEXT_KERNEL.sandbox = _Prestarted(kernel_env, next_folder, limits or Limits()) if next_folder is not None else None
    return taken


def run_job(job: GradeJob, next_assignment: Callable[[], str | None] | None = None) -> GradeRecord:
    """Grade one submission in a private course root; never raises for a bad submission.

    `next_assignment`, asked when this job's kernel starts, names the assignment of the next job to
    start (None: none is left), for which a sandbox is pre-started (`scheduler.run_local` knows it).
    Without it, one is pre-started for another job of this assignment.

    A kernel that dies is graded once more before it costs the student: an overloaded machine
    can lose a kernel (CI once lost an honest student's, with nothing in its notebook to blame).
    A notebook that kills its own kernel does so again, and only costs the grader one more run.
    """
    record = _run_job_once(job, next_assignment)
    if record.status == "error" and record.detail == KERNEL_DIED:
        first_seconds = record.seconds
        record = _run_job_once(job, next_assignment)
        record.seconds += first_seconds
        if record.status == "graded":
            record.detail += "; graded on a second run (the first run's kernel died)"
        elif record.detail == KERNEL_DIED:  # twice: the notebook's doing, or a machine that kept losing kernels
            record.retry = True
    return record


def _run_job_once(job: GradeJob, next_assignment: Callable[[], str | None] | None = None) -> GradeRecord:
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
    record.flags = list(prepared.flags) + screen_flags(job, prepared.notebook_json)
    if job.work_dir:
        Path(job.work_dir).mkdir(parents=True, exist_ok=True)
    private = Path(tempfile.mkdtemp(prefix=f"{job.student}-{job.assignment}-", dir=job.work_dir))
    # The kernel's Unix sockets: a path of their own, short (a socket's path has at most 107 bytes).
    sockets = tempfile.mkdtemp(prefix="ag-")
    try:
        os.chmod(private, 0o700)
        _run_in(private, sockets, job, prepared.notebook_json, prepared.notes, record, next_assignment)
    except Exception as error:  # noqa: BLE001  (one job's surprise must not stop the class)
        record.status, record.retry = "error", True
        record.detail = f"internal grading error ({type(error).__name__}: {error}); please report it"
    finally:
        shutil.rmtree(private, ignore_errors=True)
        shutil.rmtree(sockets, ignore_errors=True)
        record.seconds = time.perf_counter() - start
    return record


def _run_in(private: Path, sockets: str, job: GradeJob, notebook_json: str, notes: list[str],
            record: GradeRecord, next_assignment: Callable[[], str | None] | None = None) -> None:
    aid, student = job.assignment, job.student
    (private / "nbgrader_config.py").write_text(job.config + RELOCATED_CONFIG + JOB_CONFIG.format(
        cell_timeout=job.limits.cell_seconds, sockets=os.path.join(sockets, "kernel"),
        salt=job.salt or secrets.token_hex(16)))
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
        "COURSE_SANDBOX_FONTS": _font_cache(),
        "COURSE_SANDBOX_MEMORY_BYTES": str(job.limits.memory_bytes),
        "COURSE_SANDBOX_PROCESSES": str(job.limits.processes),
        "COURSE_SANDBOX_CPU_SECONDS": str(job.limits.job_seconds),
        "COURSE_SANDBOX_FOLDER_BYTES": str(job.limits.folder_bytes),
        "COURSE_SANDBOX_TMP_BYTES": str(job.limits.tmp_bytes),
        "COURSE_SANDBOX_SHM_BYTES": str(job.limits.shm_bytes),
    })
    if job.limits.threads:
        # N kernels at once that each spread over every core fight over them; torch (and
        # the BLAS under it) read these when the kernel imports them.
        # Dask's nanny sets OPENBLAS_NUM_THREADS=1 for its workers, which the kernel would inherit.
        env.update({name: str(job.limits.threads)
                    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")})
    prestarted = _kernel_for(env, aid, next_assignment() if next_assignment is not None else aid, job.limits)
    group, unlimited = (prestarted.cgroup, prestarted.unlimited) if prestarted is not None else job_cgroup(job.limits)
    if prestarted is not None:
        env[sandbox.PRESTARTED] = prestarted.handover
    if group is not None:
        env[cgroups.CGROUP] = group.description
    else:
        record.flags.append(not_limited(unlimited))
    try:
        result = launch(["autograde", aid, f"--student={student}", "--create", "--force"], private, env,
                        timeout=job.limits.job_seconds)
    finally:
        usage = group.usage() if group is not None else None
        if prestarted is not None:
            prestarted.end()
        if group is not None:
            group.remove()   # and whatever of the job still runs in it
    log = result.log
    record.log = log[-5000:]
    found = read_report(report.read_text().splitlines() if report.is_file() else [], kernel_ran=result.ok)
    record.flags = sorted(set(record.flags) | found.flags)
    storage = [job.limits.storage(place) for place in found.full] + job.limits.reached(usage) + found.notes
    if result.timed_out:
        record.detail = "; ".join([f"grading took longer than {job.limits.job_seconds} s and was stopped "
                                   "(an endless loop, or very slow code?)", *storage])
        return
    graded = Path(coursedir.format_path(coursedir.autograded_directory, student, aid)) / f"{aid}.ipynb"
    scores = read_auto_grades(coursedir.db_url, coursedir.course_id, aid, student)
    if not result.ok or scores is None or not graded.is_file():
        failure = explain_failure(log)
        if failure == KERNEL_DIED and job.limits.memory_reached() in storage:   # not a crash: its memory
            storage.remove(job.limits.memory_reached())
            failure = job.limits.memory_reached(kernel_died=True)
        record.detail = "; ".join([failure, *storage])
        # nbgrader itself killed by a signal: its fork server lost, or the machine's out-of-memory
        # killer; the notebook's kernel runs in a PID namespace of its own and cannot reach it.
        record.retry = result.returncode is not None and result.returncode < 0
        return
    record.status = "graded"
    record.autograded = graded.read_text()
    record.score, record.max_score, record.cells = scores.score, scores.max_score, scores.cells
    record.manual, record.comments = scores.manual, scores.comments
    failed = sorted(name for name, (got, most) in record.cells.items() if got < most and name not in scores.manual)
    record.detail = ("failed: " + ", ".join(failed)) if failed else "all tests passed"
    if scores.manual:
        record.detail += "; for a grader to mark: " + ", ".join(scores.manual)
    record.detail = "; ".join([record.detail, *notes, *storage])
