"""Where grading jobs run: a local pool of worker processes, or a Dask cluster.

Either way each job is `jobs.run_job` on one (student, assignment), and results come
back to the caller as they finish, so one writer can merge them.
"""
from concurrent.futures import ThreadPoolExecutor, as_completed

from course_utils.jobs import run_job


def run_local(jobs, workers):
    """Run jobs `workers` at a time; each job is its own nbgrader process (threads only wait)."""
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = [pool.submit(run_job, job) for job in jobs]
        for future in as_completed(futures):
            yield future.result()


def run_dask(jobs, workers, address=None):
    """Run jobs on a Dask cluster: the one at `address`, or a LocalCluster of `workers` processes."""
    from dask.distributed import Client, LocalCluster
    from dask.distributed import as_completed as dask_completed

    cluster = None
    if address in (None, "", "local"):
        cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    else:
        client = Client(address)
    try:
        futures = client.map(run_job, jobs, pure=False)
        for future in dask_completed(futures):
            yield future.result()
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
