"""One grading job: its flags, its failures, and that it needs nothing but the values it carries."""
import json
import os
import re
import shutil
import time

import pytest

from conftest import COURSE
from course_utils.grader.engine import jobs
from course_utils.grader.engine.jobs import GradeJob, Limits, explain_failure, gradebook_cells, read_report, run_job
from course_utils.grader.engine.pipeline import template
from course_utils.grader.engine.records import GradeRecord
from course_utils.qa import submissions
from course_utils.qa.sample_class import write_class

AID = "01_queries_keys_values"


def _line(kind, detail):
    return json.dumps({"kind": kind, "detail": detail})


def test_read_report_turns_the_sandbox_report_into_flags_and_filled_places():
    report = read_report([_line("started", 1), _line("isolation", "bubblewrap is not installed"),
                          _line("outlived", [7, 9]), _line("outlived", [9]), _line("storage", "tmp"),
                          _line("storage", "tmp"), _line("restored", "test_softmax: source put back"),
                          "not json", json.dumps({"kind": "odd"}), json.dumps([1])])
    assert report.flags == {"not isolated: bubblewrap is not installed",
                            "processes: 2 left running by the notebook, ended with the job",
                            "edited graded cell: test_softmax: source put back"}
    assert report.full == ["tmp"]


def test_output_cut_by_either_limit_is_named_once_in_the_detail():
    report = read_report([_line("started", 1), _line("output", {"cell": 3, "chars": 200}),
                          _line("output", {"cell": 5, "chars": 200}), _line("output", {"cell": 5, "message_bytes": 2 << 20}),
                          _line("output", "odd")])
    assert report.notes == ["a cell printed more than 200 characters: the grader kept the first 200 of its output",
                            "a cell printed more than 2 MB at once, which the grader refuses: its output was cut",
                            "a cell printed more than the grader keeps: its output was cut"]


def test_each_left_process_counts_once_whoever_ended_it():
    """The sandbox's supervisor and nbgrader's own subreaper may both report a process: one process."""
    report = read_report([_line("started", 1), _line("outlived", [4, 5, 6]), _line("outlived", [6])])
    assert report.flags == {"processes: 3 left running by the notebook, ended with the job"}


def test_a_kernel_that_never_reported_is_flagged_as_not_isolated_only_if_a_kernel_ran():
    assert read_report([]).flags == {"not isolated: the kernel did not start through course_utils.grader.judge.sandbox"}
    assert read_report([], kernel_ran=False).flags == set(), "nbgrader failed before any kernel: nothing to say"


def test_a_launcher_that_could_not_join_its_jobs_cgroup_is_flagged_without_holding_the_grade():
    report = read_report([_line("started", 1), _line("limits", "could not join the job's cgroup /x (Permission denied)")])
    [flag] = report.flags
    assert flag == (f"{jobs.NOT_LIMITED}: could not join the job's cgroup /x (Permission denied) (memory and CPU "
                    "time are limited per process, processes per sandbox)")
    assert not GradeRecord("ana", AID, "graded", flags=[flag]).held, "the machine's doing, like `not isolated`"


def test_a_limit_of_the_job_reached_tells_the_student_which_and_the_option():
    from course_utils.grader.judge.sandbox.cgroups import Usage

    limits = Limits(memory_bytes=3 << 30, processes=100)
    assert limits.reached(None) == limits.reached(Usage()) == []
    said = limits.reached(Usage(oom_kills=1, processes_refused=4))
    assert "memory limit (3 GB for all of the notebook's processes together" in said[0] and "--memory-gb" in said[0]
    assert "limit of 100 processes and threads" in said[1] and "--processes" in said[1]
    assert "no test after that point could run" in limits.memory_reached(kernel_died=True)


def test_per_job_cgroups_can_be_switched_off_and_the_reason_says_so(monkeypatch):
    monkeypatch.setenv("COURSE_GRADER_CGROUPS", "0")
    assert jobs.job_cgroup(Limits()) == (None, "per-job cgroups are switched off (COURSE_GRADER_CGROUPS=0)")


def test_a_filled_place_tells_the_student_its_limit_and_the_option():
    says = Limits(tmp_bytes=32 << 20).storage("tmp")
    assert "/tmp" in says and "32 MB" in says and "--tmp-mb" in says


def test_locked_and_answer_cells_read_from_a_template_gradebook(tmp_path):
    made = template(COURSE, AID, tmp_path)
    cells, answers = gradebook_cells(made.gradebook)
    assert answers == sorted(["softmax", "dot_product_scores", "soft_lookup", "QKVProjection"])
    tests = [source for source, is_test in cells if is_test]
    assert any("BEGIN HIDDEN TESTS" in source for source in tests), "the gradebook holds the hidden tests"
    assert any("import torch" in source for source, is_test in cells if not is_test), "and the provided cells"
    assert b'"nbgrader"' in made.release and b"BEGIN HIDDEN TESTS" not in made.release


@pytest.mark.parametrize("log, says", [
    ("... DeadKernelError: Kernel died", "kernel died"),
    ("CellTimeoutError: A cell timed out while it was being executed", "per-cell time limit"),
    ("[AutogradeApp | ERROR] Something specific went wrong", "Something specific went wrong"),
    ("nothing useful", "nbgrader could not grade it"),
])
def test_explain_failure_says_why_in_one_line(log, says):
    assert says in explain_failure(log)


def _runs(monkeypatch, *records):
    """Make each grading run return the next of `records`; the list of runs made."""
    made, results = [], iter(records)
    monkeypatch.setattr(jobs, "_run_job_once", lambda job, next_assignment=None: made.append(job) or next(results))
    return made


def test_a_kernel_that_died_is_graded_once_more_before_it_costs_the_student(monkeypatch):
    made = _runs(monkeypatch, GradeRecord("ana", AID, "error", detail=jobs.KERNEL_DIED, seconds=1.0),
                 GradeRecord("ana", AID, "graded", 12.0, 12.0, "all tests passed", seconds=2.0))
    record = run_job("a job")
    assert made == ["a job", "a job"] and record.status == "graded" and record.score == 12.0
    assert "second run" in record.detail and record.seconds == 3.0


def test_a_kernel_that_dies_again_is_an_error_and_other_errors_run_once(monkeypatch):
    made = _runs(monkeypatch, *[GradeRecord("ana", AID, "error", detail=jobs.KERNEL_DIED)] * 2)
    assert run_job("a job").detail == jobs.KERNEL_DIED and len(made) == 2
    made = _runs(monkeypatch, GradeRecord("ana", AID, "error", detail="grading took longer than 60 s"))
    assert run_job("a job").status == "error" and len(made) == 1


def test_a_broken_submission_is_an_error_for_its_author_alone():
    job = GradeJob(AID, "ana", b'{"cells": [', b"", "c = get_config()\n")
    record = run_job(job)
    assert record.status == "error" and "not valid notebook JSON" in record.detail


@pytest.mark.slow
def test_a_job_grades_with_the_course_folder_gone(tmp_path):
    """A job carries its inputs: a Dask worker elsewhere grades it with the course root moved away.

    The worker runs in another working directory, in a process of its own, and the scratch
    course the job came from no longer exists at its path when the job runs.
    """
    from dask.distributed import Client, LocalCluster

    scratch = write_class(COURSE, [AID], tmp_path / "course",
                          lambda _, release, solution: {"ana": submissions.perfect(release, solution)})
    made = template(scratch, AID, tmp_path / "templates")
    job = GradeJob(AID, "ana", (scratch.submitted("ana", AID) / f"{AID}.ipynb").read_bytes(),
                   made.gradebook, scratch.config_file.read_text(), Limits(cell_seconds=60, job_seconds=300),
                   release=made.release)
    shutil.move(str(scratch.root), str(tmp_path / "moved away"))
    shutil.rmtree(tmp_path / "templates")
    elsewhere = tmp_path / "worker"
    elsewhere.mkdir()
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                      local_directory=str(elsewhere)) as cluster, Client(cluster) as client:
        record = client.submit(run_job, job, pure=False).result()
        worker_cwd = client.run(os.getcwd)
    assert not scratch.root.exists()
    assert all(cwd != str(scratch.root) for cwd in worker_cwd.values())
    assert record.status == "graded" and record.score == record.max_score > 0, record.detail + record.log
    assert record.flags == [], "isolated, and nothing in the source to look at"
    assert '"nbgrader"' in record.autograded


@pytest.fixture(scope="module")
def cold_and_prestarted(tmp_path_factory):
    """One submission graded twice on one worker: first by a kernel started cold, then by the pre-started one."""
    tmp_path = tmp_path_factory.mktemp("prestart")
    scratch = write_class(COURSE, [AID], tmp_path / "course",
                          lambda _, release, solution: {"ana": submissions.perfect(release, solution)})
    made = template(scratch, AID, tmp_path / "templates")
    job = GradeJob(AID, "ana", (scratch.submitted("ana", AID) / f"{AID}.ipynb").read_bytes(), made.gradebook,
                   scratch.config_file.read_text(), Limits(cell_seconds=60, job_seconds=300, threads=1),
                   release=made.release)
    jobs.end_prestarted()  # whatever an earlier test left: the first run below starts its kernel cold
    reports, original = [], jobs.read_report
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jobs, "read_report",
                      lambda lines, **kw: original(reports.append(list(lines)) or reports[-1], **kw))
        records = [run_job(job), run_job(job)]
    waiting = jobs._NEXT_KERNEL.sandbox
    yield records, reports, waiting
    jobs.end_prestarted()


def _outputs(record):
    from course_utils import ipynb

    # Joined per cell: how a stream is cut into messages depends on timing, not on what the kernel printed.
    # A cell that prints measured times (milliseconds) differs between any two runs, and is left out.
    printed = ["".join(o.get("text") or o.get("data", {}).get("text/plain") or o.get("evalue", "")
                       for o in cell.get("outputs", []))
               for cell in ipynb.reads(record.autograded).cells if cell.cell_type == "code"]
    return [text for text in printed if not re.search(r"time \(ms\)|\d ms\b", text)]


@pytest.mark.slow
def test_a_prestarted_kernel_grades_exactly_as_a_cold_one(cold_and_prestarted):
    (cold, warm), reports, _ = cold_and_prestarted
    kinds = [[json.loads(line)["kind"] for line in lines] for lines in reports]
    assert "prestarted" not in kinds[0] and "prestarted" in kinds[1], kinds
    assert cold.status == warm.status == "graded" and cold.flags == warm.flags == []
    assert (cold.score, cold.cells, cold.detail) == (warm.score, warm.cells, warm.detail)
    assert _outputs(cold) == _outputs(warm), "the same seeds, parameters and environment: the same outputs"


def _running(pids):
    """Those of `pids` that still run (a zombie waiting for its reaper has ended)."""
    running = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        if stat[stat.rfind(b")") + 2:][:1] not in (b"Z", b"X"):
            running.append(pid)
    return running


@pytest.mark.slow
def test_a_prestarted_kernel_that_no_job_takes_is_ended_with_its_sandbox(cold_and_prestarted):
    from course_utils.grader.judge import sandbox

    waiting = cold_and_prestarted[2]
    deadline = time.monotonic() + 60
    while len(sandbox.descendants(waiting.proc.pid)) < 3 and time.monotonic() < deadline:
        time.sleep(0.2)   # bwrap, the supervisor and its kernel
    inside = sandbox.descendants(waiting.proc.pid)
    assert len(inside) >= 3, inside
    assert jobs._kernel_for({"COURSE_SANDBOX_TMP_BYTES": str(8 << 20)}, AID, AID) is None, "other limits: not taken"
    assert waiting.proc.poll() is not None, "a sandbox made for other limits is not handed to this job"
    jobs.end_prestarted()
    deadline = time.monotonic() + 30
    while _running(inside) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _running(inside), "its bwrap, supervisor and kernel end"
    assert not os.path.exists(waiting.handover)
