"""One grading job: one student's submission of one assignment, graded in private.

A job copies the assignment's template gradebook and the (sanitized) submission into a
fresh private course root, runs `nbgrader autograde` there in its own process group
under time and memory limits, with kernels started by `course_utils.sandbox`, and
returns a picklable `JobResult`. Jobs share nothing, so they run the same in a local
pool or on Dask workers; only the parent writes to the real gradebook.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from course_utils.course import Course
from course_utils.gradebook import submission_scores
from course_utils.nbgrader_runner import SCRATCH_CONFIG, tool_environment
from course_utils.sanitize import BrokenSubmission, prepare

JOB_CONFIG_EXTRA = '''
c.Execute.timeout = {cell_timeout}
c.Execute.kernel_name = "python3"
# Megabytes of output stay in the student's kernel, not in the gradebook or feedback.
c.LimitOutput.max_lines = 200
c.LimitOutput.max_traceback = 40
'''


@dataclass
class Limits:
    cell_seconds: int = 120       # one cell (the grader's timeout per cell)
    job_seconds: int = 600        # the whole submission, kernel start to last test
    memory_bytes: int = 4 << 30   # address space of the student's kernel
    threads: int = 0              # CPU threads of the student's kernel (0: torch's default, all cores)


@dataclass
class GradeJob:
    assignment: str
    student: str
    submission: str           # path of the submitted notebook
    template_db: str          # a gradebook holding only this assignment
    course_config: str        # the course's nbgrader_config.py
    course_id: str
    jobs_dir: str             # where private roots are made (hidden from student code)
    hide: list = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)


@dataclass
class JobResult:
    assignment: str
    student: str
    status: str               # graded | error
    score: float = 0.0
    max_score: float = 0.0
    cells: dict = field(default_factory=dict)
    detail: str = ""
    flags: list = field(default_factory=list)
    autograded: str = ""      # the graded notebook's JSON (for feedback), "" if none
    seconds: float = 0.0
    log: str = ""


def _kernelspec(folder: Path):
    spec = folder / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "course_utils.sandbox", "-f", "{connection_file}"],
        "display_name": "Python 3 (graded)", "language": "python",
        "metadata": {"debugger": False}}))


try:  # Linux: resolved once here, since a preexec_fn in a threaded parent must do very little
    import ctypes

    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):
    _PRCTL = None


def _die_with_parent():
    """In the child: be killed (PR_SET_PDEATHSIG) if the grading parent is killed."""
    if _PRCTL is not None:
        _PRCTL(1, int(signal.SIGKILL))


def _explain_failure(log):
    text = log.lower()
    if "kernel died" in text or "deadkernelerror" in text or "kernel didn't respond" in text:
        return ("the notebook's kernel died while running it (os._exit, sys.exit at top level, a crash, "
                "or more memory than allowed); no test after that point could run")
    if "celltimeouterror" in text or "timed out" in text:
        return "a cell ran longer than the per-cell time limit (an endless loop?)"
    lines = [ln for ln in log.strip().splitlines() if "ERROR" in ln]
    return lines[-1][-300:] if lines else "nbgrader could not grade it"


def _read_flags(report: Path):
    flags, started = set(), False
    if report.is_file():
        for line in report.read_text().splitlines():
            try:
                item = json.loads(line)
            except json.JSONDecodeError:
                continue
            if item["kind"] == "read-outside":
                flags.add(f"file access: read {item['detail']}")
            elif item["kind"] == "monkeypatch":
                flags.add(f"monkeypatch: {item['detail']} replaced at run time")
            elif item["kind"] == "started":
                started = True
            elif item["kind"] == "isolation":
                flags.add(f"not isolated: {item['detail']}")
    if not started:
        flags.add("not isolated: the kernel did not start through course_utils.sandbox")
    return flags


def run_job(job: GradeJob) -> JobResult:
    """Grade one submission in a private course root; never raises for a bad submission."""
    start = time.perf_counter()
    result = JobResult(job.assignment, job.student, "error")
    try:
        prepared = prepare(Path(job.submission))
    except BrokenSubmission as error:
        result.detail = str(error)
        return result
    except Exception as error:  # noqa: BLE001
        result.detail = f"could not read the submission ({type(error).__name__}: {error})"
        return result
    result.flags = list(prepared.flags)
    Path(job.jobs_dir).mkdir(parents=True, exist_ok=True)
    private = Path(tempfile.mkdtemp(prefix=f"{job.student}-{job.assignment}-", dir=job.jobs_dir))
    try:
        os.chmod(private, 0o700)
        _run_in(private, job, prepared, result)
    except Exception as error:  # noqa: BLE001  (one job's surprise must not stop the class)
        result.status = "error"
        result.detail = f"internal grading error ({type(error).__name__}: {error}); please report it"
    finally:
        shutil.rmtree(private, ignore_errors=True)
        result.seconds = time.perf_counter() - start
    return result


def _run_in(private: Path, job: GradeJob, prepared, result: JobResult):
    aid, student = job.assignment, job.student
    config = SCRATCH_CONFIG.format(repo_config=job.course_config, root=str(private),
                                   db_url="sqlite:///" + str(private / "gradebook.db"))
    (private / "nbgrader_config.py").write_text(config + JOB_CONFIG_EXTRA.format(
        cell_timeout=job.limits.cell_seconds))
    shutil.copy(job.template_db, private / "gradebook.db")
    submitted = private / "submitted" / student / aid / f"{aid}.ipynb"
    submitted.parent.mkdir(parents=True)
    import nbformat

    nbformat.write(prepared.notebook, str(submitted))
    _kernelspec(private / "jupyter")
    report = private / "sandbox-report.jsonl"
    env = tool_environment()
    env.update({
        "JUPYTER_PATH": str(private / "jupyter"),
        "COURSE_SANDBOX_REPORT": str(report),
        "COURSE_SANDBOX_HIDE": os.pathsep.join(job.hide),
        "COURSE_SANDBOX_MEMORY_BYTES": str(job.limits.memory_bytes),
        "COURSE_SANDBOX_CPU_SECONDS": str(job.limits.job_seconds),
    })
    if job.limits.threads:
        # N kernels at once that each spread over every core fight over them; torch (and
        # the BLAS under it) read these when the kernel imports them.
        env.update({"OMP_NUM_THREADS": str(job.limits.threads), "MKL_NUM_THREADS": str(job.limits.threads)})
    cmd = [sys.executable, "-m", "nbgrader", "autograde", aid, f"--student={student}", "--create", "--force"]
    proc = subprocess.Popen(cmd, cwd=private, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True, preexec_fn=_die_with_parent)
    try:
        log, _ = proc.communicate(timeout=job.limits.job_seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        log, _ = proc.communicate()
        result.log = log[-5000:]
        result.detail = (f"grading took longer than {job.limits.job_seconds} s and was stopped "
                         "(an endless loop, or very slow code?)")
        result.flags = sorted(set(result.flags) | _read_flags(report))
        return
    result.log = log[-5000:]
    result.flags = sorted(set(result.flags) | _read_flags(report))
    graded = private / "autograded" / student / aid / f"{aid}.ipynb"
    scores = submission_scores(Course(private), aid, student)
    if proc.returncode != 0 or scores is None or not graded.is_file():
        result.detail = _explain_failure(log)
        return
    result.status = "graded"
    result.score, result.max_score, result.cells = scores
    failed = sorted(name for name, (got, most) in result.cells.items() if got < most)
    result.detail = ("failed: " + ", ".join(failed)) if failed else "all tests passed"
    if prepared.notes:
        result.detail += "; " + "; ".join(prepared.notes)
    result.autograded = cap_outputs(graded.read_text())


MAX_OUTPUT_CHARS = 20_000


def cap_outputs(notebook_json, limit=MAX_OUTPUT_CHARS):
    """Shorten every output longer than `limit` characters (nbgrader's LimitOutput counts only lines)."""
    import nbformat

    nb = nbformat.reads(notebook_json, as_version=4)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if "text" in output and len(output["text"]) > limit:
                cut = len(output["text"]) - limit
                output["text"] = output["text"][:limit] + f"\n... [{cut} more characters cut by the grader]\n"
            for kind, value in output.get("data", {}).items():
                if isinstance(value, str) and len(value) > limit and kind.startswith("text/"):
                    output["data"][kind] = value[:limit] + "\n... [cut by the grader]"
    return nbformat.writes(nb)
