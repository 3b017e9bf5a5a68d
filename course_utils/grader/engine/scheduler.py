"""Where grading jobs run: a local pool of workers, or a Dask cluster.

Either way each job is `jobs.run_job` on one (student, assignment), results come back as
they finish (so one writer can merge them), and at most two jobs per grading slot are in
flight: a class of thousands never holds every submission in memory at once.

On Dask, each job's kernel gets its share of the cores of the machine it lands on (see
`with_thread_share`), decided on the worker, so that machines of different sizes each split
their own cores; docs/grading-on-a-cluster.md says how to start a cluster for grading.
"""
from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import replace
from itertools import islice

from course_utils.course import CourseError
from course_utils.grader.engine.jobs import GradeJob, end_orphaned_prestarted, run_job
from course_utils.grader.engine.records import GradeRecord

IN_FLIGHT_PER_WORKER = 2


def lost(job: GradeJob, error: BaseException) -> GradeRecord:
    """The record of a job whose worker failed it (a Dask worker that died, a job that raised):
    an error of the grading machine's, which the next run grades again."""
    return GradeRecord(job.student, job.assignment, "error", retry=True,
                       detail=f"the grading worker failed ({type(error).__name__}: {str(error)[:200]})")


def _outcome(future: object, job: GradeJob) -> GradeRecord:
    try:
        return future.result()
    except Exception as error:  # noqa: BLE001  (one lost job must not stop the class's run)
        return lost(job, error)


class _Queue:
    """The jobs of a local run, read one ahead, and those handed to the pool but not begun (the pool
    begins them in order): together they tell a job that begins which assignment comes next, if any."""

    def __init__(self, jobs: Iterable[GradeJob]) -> None:
        self._jobs = iter(jobs)
        self._next = next(self._jobs, None)
        self._lock = threading.Lock()
        self._waiting: deque[GradeJob] = deque()

    def take(self, count: int) -> list[GradeJob]:
        """Up to `count` jobs for the pool (in the caller's thread: the jobs' iterator is read there alone)."""
        taken = []
        while len(taken) < count and self._next is not None:
            taken.append(self._next)
            following = next(self._jobs, None)
            with self._lock:
                self._waiting.append(self._next)
                self._next = following
        return taken

    def begin(self, job: GradeJob) -> GradeRecord:
        """Grade `job` in a pool thread; its worker pre-starts a sandbox for the job to come, if one does."""
        with self._lock:
            self._waiting.remove(job)
        return run_job(job, next_assignment=self.next_assignment)

    def next_assignment(self) -> str | None:
        with self._lock:
            following = self._waiting[0] if self._waiting else self._next
            return following.assignment if following is not None else None


def run_local(jobs: Iterable[GradeJob], workers: int) -> Iterator[GradeRecord]:
    """Run jobs `workers` at a time; each job is its own nbgrader process (the threads only wait)."""
    workers = max(1, workers)
    queue = _Queue(jobs)
    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            running = {pool.submit(queue.begin, job): job for job in queue.take(IN_FLIGHT_PER_WORKER * workers)}
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    yield _outcome(future, running.pop(future))
                    running |= {pool.submit(queue.begin, job): job for job in queue.take(1)}
    finally:
        end_orphaned_prestarted()  # with several workers, one may have pre-started for a job another took


def thread_share(cores: int, slots: int) -> int:
    """CPU threads of one kernel on a machine with `cores` cores and `slots` kernels at once (at least 1)."""
    return max(1, cores // max(1, slots))


def slots_on_each_host(workers: dict[str, dict]) -> dict[str, int]:
    """Grading slots (jobs at once: the threads of its Dask workers) of each host, from the scheduler's info."""
    slots: Counter[str] = Counter()
    for info in workers.values():
        slots[info["host"]] += info["nthreads"]
    return dict(slots)


def slots_on_this_host() -> int:
    """On a Dask worker: the grading slots of its host, as the scheduler knows them now (this worker's included)."""
    from dask.distributed import get_client, get_worker

    worker = get_worker()
    everyone = get_client().scheduler_info(n_workers=-1)["workers"]
    # A worker is in the scheduler's info under the address it gave; should it not be, its own slots.
    here = everyone.get(worker.address, {"host": None, "nthreads": worker.state.nthreads})
    return slots_on_each_host(everyone).get(here["host"], here["nthreads"])


def with_thread_share(grade: Callable[[GradeJob], GradeRecord], job: GradeJob) -> GradeRecord:
    """`grade(job)` on a Dask worker, the job's kernel limited to its share of this machine's cores.

    The share is the cores this worker process may use (its CPU affinity) over the grading
    slots of every worker on its host when the job starts (a worker that joined since the run
    began counts too). A `threads` the instructor set is kept.
    """
    if not job.limits.threads:
        # Imported here: pipeline imports this module.
        from course_utils.grader.engine.pipeline import available_cores

        share = thread_share(available_cores(), slots_on_this_host())
        job = replace(job, limits=replace(job.limits, threads=share))
    return grade(job)


def run_dask(jobs: Iterable[GradeJob], workers: int, address: str | None = None,
             grade: Callable[[GradeJob], GradeRecord] = run_job) -> Iterator[GradeRecord]:
    """Run jobs on a Dask cluster: the one at `address`, or a LocalCluster of `workers` processes.

    Each job is `grade(job)` (`run_job`; a test may observe what a job gets on a worker) through
    `with_thread_share`, on the worker that runs it.
    """
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
        pending = iter(jobs)
        finished = as_completed()
        submitted: dict[str, GradeJob] = {}

        def top_up() -> None:  # to two jobs per slot of the cluster as it is now: workers may join during a run
            slots = sum(slots_on_each_host(client.scheduler_info(n_workers=-1)["workers"]).values()) or workers
            for job in islice(pending, max(0, IN_FLIGHT_PER_WORKER * max(1, slots) - finished.count())):
                future = client.submit(with_thread_share, grade, job, pure=False)
                submitted[future.key] = job
                finished.add(future)

        top_up()
        for future in finished:
            yield _outcome(future, submitted.pop(future.key))
            top_up()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
