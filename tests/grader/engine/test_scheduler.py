"""Local and Dask schedulers: every job's result comes back once, with few jobs in flight, and each kernel's
thread share on a Dask worker is its own machine's."""
import os
import sys
import threading
import time

import pytest

from course_utils.course import CourseError
from course_utils.grader.engine import scheduler
from course_utils.grader.engine.jobs import GradeJob, Limits
from course_utils.grader.engine.records import GradeRecord


class _Counting:
    """A stand-in for run_job that records how many jobs run at once."""

    def __init__(self):
        self.lock, self.now, self.most = threading.Lock(), 0, 0

    def __call__(self, job, next_assignment=None):
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        time.sleep(0.01)
        with self.lock:
            self.now -= 1
        return GradeRecord(job, "01_x", "graded")


def test_run_local_returns_every_job_once_and_bounds_what_is_made(monkeypatch):
    fake = _Counting()
    monkeypatch.setattr(scheduler, "run_job", fake)
    made = []

    def jobs():
        for i in range(40):
            made.append(i)
            # Jobs are made as workers free up: never more than IN_FLIGHT_PER_WORKER per worker ahead.
            assert len(made) - fake_done[0] <= scheduler.IN_FLIGHT_PER_WORKER * 3 + 1
            yield f"s{i}"

    fake_done = [0]
    results = []
    for record in scheduler.run_local(jobs(), workers=3):
        results.append(record.student_id)
        fake_done[0] += 1
    assert sorted(results) == sorted(f"s{i}" for i in range(40))
    assert 1 < fake.most <= 3


def test_run_local_tells_each_job_which_assignment_comes_next(monkeypatch):
    """A job's worker pre-starts a sandbox (seconds of CPU) for the job to come, which needs one for its
    own notebook folder, and none when no job is left to take it."""
    told = []

    class Job:
        def __init__(self, student, assignment):
            self.student, self.assignment = student, assignment

    def fake(job, next_assignment=None):
        told.append((job.student, next_assignment()))
        return GradeRecord(job.student, job.assignment, "graded")

    monkeypatch.setattr(scheduler, "run_job", fake)
    class_ = [Job("s0", "01_x"), Job("s1", "01_x"), Job("s0", "02_y"), Job("s1", "02_y")]
    assert len(list(scheduler.run_local(iter(class_), workers=1))) == 4
    assert told == [("s0", "01_x"), ("s1", "02_y"), ("s0", "02_y"), ("s1", None)]
    told.clear()
    list(scheduler.run_local(iter([Job("alone", "01_x")]), workers=2))
    assert told == [("alone", None)], "one student graded from the formgrader: no sandbox for nobody"


def test_a_local_run_ends_the_prestarted_sandboxes_its_workers_leave(monkeypatch):
    """A sandbox pre-started by a pool thread that has ended can never be taken: the run ends it."""
    from course_utils.grader.engine import jobs

    class Sandbox:
        def __init__(self):
            self.thread, self.ended = threading.current_thread(), False

        def end(self):
            self.ended = True
            jobs._PRESTARTED.discard(self)

    left = []

    def fake(job, next_assignment=None):
        left.append(Sandbox())   # what a worker whose next job went to another worker leaves
        jobs._PRESTARTED.add(left[-1])
        return GradeRecord(job, "01_x", "graded")

    monkeypatch.setattr(scheduler, "run_job", fake)
    mine = Sandbox()   # this thread's own, which its next job may still take
    jobs._PRESTARTED.add(mine)
    try:
        list(scheduler.run_local(iter(["s0", "s1", "s2"]), workers=2))
        assert len(left) == 3 and all(sandbox.ended for sandbox in left)
        assert not mine.ended and mine in jobs._PRESTARTED
    finally:
        jobs._PRESTARTED.discard(mine)


def test_dask_without_the_grader_extra_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)   # as if dask were not installed
    with pytest.raises(CourseError, match=r"\[grader\]"):
        list(scheduler.run_dask(iter([]), 1))


def test_thread_share_splits_a_machine_between_its_slots():
    assert scheduler.thread_share(cores=16, slots=4) == 4
    assert scheduler.thread_share(cores=8, slots=3) == 2
    assert scheduler.thread_share(cores=2, slots=4) == 1, "never fewer than one thread"
    assert scheduler.thread_share(cores=8, slots=0) == 8


def test_slots_are_summed_over_the_workers_of_each_host():
    workers = {"tcp://10.0.0.1:4001": {"host": "10.0.0.1", "nthreads": 1},
               "tcp://10.0.0.1:4002": {"host": "10.0.0.1", "nthreads": 1},
               "tcp://10.0.0.1:4003": {"host": "10.0.0.1", "nthreads": 2},
               "tcp://10.0.0.2:4001": {"host": "10.0.0.2", "nthreads": 3}}
    assert scheduler.slots_on_each_host(workers) == {"10.0.0.1": 4, "10.0.0.2": 3}


@pytest.mark.slow
def test_every_dask_worker_gives_its_jobs_the_share_of_its_own_host():
    """Two "machines" (Dask workers as processes on 127.0.0.1 and on 127.0.0.2): two slots on one, one on the other."""
    from dask.distributed import Nanny, Scheduler, SpecCluster

    def observe(job):
        # Runs in the worker process, through the same wrapper as run_job: what would the kernel get, and why?
        from dask.distributed import get_worker

        from course_utils.grader.engine.pipeline import available_cores

        time.sleep(0.5)  # long enough that every worker gets jobs
        host = get_worker().address.split("://")[1].rsplit(":", 1)[0]
        got = [host, job.limits.threads, available_cores(), scheduler.slots_on_this_host()]
        return GradeRecord(job.student, job.assignment, "graded", detail=" ".join(map(str, got)))

    def on(host):
        return {"cls": Nanny, "options": {"nthreads": 1, "host": host}}

    made, seen = [], {}

    def jobs():
        for i in range(9):
            assert len(made) - len(seen) < scheduler.IN_FLIGHT_PER_WORKER * 3, "jobs are made as slots free up"
            made.append(f"s{i}")
            yield GradeJob("01_x", f"s{i}", b"", b"", "", Limits(threads=3 if i == 0 else 0))

    with SpecCluster(workers={"a1": on("127.0.0.1"), "a2": on("127.0.0.1"), "b": on("127.0.0.2")},
                     scheduler={"cls": Scheduler, "options": {"host": "127.0.0.1", "dashboard_address": ":0"}},
                     asynchronous=False) as cluster:
        for record in scheduler.run_dask(jobs(), 1, cluster.scheduler_address, grade=observe):
            seen[record.student_id] = record.detail.split()
    assert sorted(seen) == sorted(made) and len(made) == 9
    assert seen.pop("s0")[1] == "3", "a share the instructor set is kept"
    slots = {"127.0.0.1": 2, "127.0.0.2": 1}
    assert {host for host, *_ in seen.values()} == set(slots), "jobs ran on both hosts"
    for host, threads, cores, slots_seen in seen.values():
        assert int(slots_seen) == slots[host], seen
        assert int(cores) == len(os.sched_getaffinity(0)), "the worker's affinity, which it inherits from here"
        assert int(threads) == scheduler.thread_share(int(cores), slots[host]), seen


def test_a_job_whose_worker_fails_is_an_error_graded_again_next_run(monkeypatch):
    def flaky(job, next_assignment=None):
        if job.student == "s1":
            raise ConnectionResetError("worker lost")
        return GradeRecord(job.student, job.assignment, "graded")

    class Job:
        def __init__(self, student):
            self.student, self.assignment = student, "01_x"

    monkeypatch.setattr(scheduler, "run_job", flaky)
    records = {r.student_id: r for r in scheduler.run_local([Job(f"s{i}") for i in range(3)], workers=2)}
    assert set(records) == {"s0", "s1", "s2"}, "the other jobs go on"
    lost = records["s1"]
    assert lost.status == "error" and lost.retry and "ConnectionResetError: worker lost" in lost.detail
    assert records["s0"].status == records["s2"].status == "graded"
