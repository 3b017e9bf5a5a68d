"""Local and Dask schedulers: every job's result comes back once, with few jobs in flight."""
import sys
import threading
import time

import pytest

from course_utils.course import CourseError
from course_utils.grader import scheduler
from course_utils.grader.records import GradeRecord


class _Counting:
    """A stand-in for run_job that records how many jobs run at once."""

    def __init__(self):
        self.lock, self.now, self.most = threading.Lock(), 0, 0

    def __call__(self, job):
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


def test_dask_without_the_grader_extra_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)   # as if dask were not installed
    with pytest.raises(CourseError, match=r"\[grader\]"):
        list(scheduler.run_dask(iter([]), 1))
