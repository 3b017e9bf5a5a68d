"""Where grading jobs run: a local pool of workers, or a Dask cluster.

Either way each job is `jobs.run_job` on one (student, assignment), results come back as
they finish (so one writer can merge them), and at most two jobs per worker are in flight:
a class of thousands never holds every submission in memory at once.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from itertools import islice

from course_utils.course import CourseError
from course_utils.grader.jobs import GradeJob, run_job
from course_utils.grader.records import GradeRecord

IN_FLIGHT_PER_WORKER = 2


def run_local(jobs: Iterable[GradeJob], workers: int) -> Iterator[GradeRecord]:
    """Run jobs `workers` at a time; each job is its own nbgrader process (the threads only wait)."""
    workers = max(1, workers)
    pending = iter(jobs)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        running = {pool.submit(run_job, job) for job in islice(pending, IN_FLIGHT_PER_WORKER * workers)}
        while running:
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()
                running |= {pool.submit(run_job, job) for job in islice(pending, 1)}


def run_dask(jobs: Iterable[GradeJob], workers: int, address: str | None = None) -> Iterator[GradeRecord]:
    """Run jobs on a Dask cluster: the one at `address`, or a LocalCluster of `workers` processes."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as error:
        raise CourseError("Grading on Dask needs the grader's extra packages: "
                          "pip install -e \".[grader]\" (or pip install 'attention-graded[grader]').") from error
    cluster = None
    if address in (None, "", "local"):
        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    else:
        client = Client(address)
    try:
        slots = IN_FLIGHT_PER_WORKER * max(1, len(client.scheduler_info().get("workers", {})) or workers)
        pending = iter(jobs)
        finished = as_completed([client.submit(run_job, job, pure=False) for job in islice(pending, slots)])
        for future in finished:
            yield future.result()
            for job in islice(pending, 1):
                finished.add(client.submit(run_job, job, pure=False))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
