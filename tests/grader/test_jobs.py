"""One grading job: its flags, its failures, and that it needs nothing but the values it carries."""
import json
import os
import shutil

import pytest

from conftest import COURSE
from course_utils.grader import jobs
from course_utils.grader.jobs import GradeJob, Limits, explain_failure, read_flags, run_job, unverified_cells
from course_utils.grader.records import GradeRecord
from course_utils.grader.pipeline import template_gradebook
from course_utils.qa import submissions
from course_utils.qa.sample_class import write_class

AID = "01_queries_keys_values"


def _line(kind, detail):
    return json.dumps({"kind": kind, "detail": detail})


def test_read_flags_turns_the_sandbox_report_into_flags():
    flags = read_flags([_line("started", 1), _line("read-outside", "/srv/course/solutions/x"),
                        _line("tamper", "torch.allclose replaced"), _line("isolation", "no mount namespace"),
                        _line("outlived", 2), _line("restored", "test_softmax: grade put back"),
                        _line("verified", 3), "not json", json.dumps({"kind": "odd"}), json.dumps([1])])
    assert flags == {"file access: read /srv/course/solutions/x", "tampering: torch.allclose replaced",
                     "not isolated: no mount namespace",
                     "processes: 2 left running by the notebook, ended with the job",
                     "edited graded cell: test_softmax: grade put back"}


def test_a_kernel_that_never_reported_is_flagged_as_not_isolated_only_if_a_kernel_ran():
    assert read_flags([]) == {"not isolated: the kernel did not start through course_utils.grader.sandbox"}
    assert read_flags([], kernel_ran=False) == set(), "nbgrader failed before any kernel: nothing to say of one"


def test_cells_that_ran_without_their_integrity_check_are_found():
    report = [_line("verified", n) for n in (1, 2, 3)]
    assert unverified_cells(report, [1, 2, 3, 4]) == [], "the last cell may have killed its kernel"
    assert unverified_cells(report, [1, 2, 3, 4, 5, 6]) == [4, 5]
    assert unverified_cells([], [1]) == []


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
    monkeypatch.setattr(jobs, "_run_job_once", lambda job: made.append(job) or next(results))
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
    job = GradeJob(AID, "ana", (scratch.submitted("ana", AID) / f"{AID}.ipynb").read_bytes(),
                   template_gradebook(scratch, AID, tmp_path / "templates"), scratch.config_file.read_text(),
                   Limits(cell_seconds=60, job_seconds=300))
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
    assert '"nbgrader"' in record.autograded
