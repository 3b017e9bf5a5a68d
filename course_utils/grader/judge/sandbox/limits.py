"""Limits of a graded kernel that its own processes set: memory, CPU time and, without a cgroup, processes.

For the sandbox's launchers and supervisor. The job's cgroup (`cgroups`, made by the grading
worker) is what holds a job's processes together; the launcher joins it first thing, so that bwrap,
the supervisor, the kernel and everything they start are in it. These per-process limits hold
besides, inherited by every process below the launcher: data memory (RLIMIT_DATA), so that one
allocation too many is a MemoryError in the student's cell rather than a killed kernel, and CPU time
(RLIMIT_CPU). Where no cgroup holds the job, the supervisor limits processes with RLIMIT_NPROC,
once it runs in the sandbox's own user namespace: since Linux 5.14 that limit counts the processes
of its uid in that namespace alone, that is, the job's, never the grading account's others.
`course autograde` (jobs.py) sets all of them through the environment of the kernel's launcher.
"""
from __future__ import annotations

import os
import resource

from course_utils.grader.judge.sandbox import cgroups, report


def _environ_int(name: str) -> int:
    return int(os.environ.get(name, "0") or 0)


MEMORY_BYTES = _environ_int("COURSE_SANDBOX_MEMORY_BYTES")
CPU_SECONDS = _environ_int("COURSE_SANDBOX_CPU_SECONDS")
PROCESSES = _environ_int("COURSE_SANDBOX_PROCESSES")   # processes and threads of the job


def apply_limits() -> None:
    """Memory and CPU-time limits, inherited by bwrap, the supervisor and the kernel."""
    if MEMORY_BYTES:
        # RLIMIT_DATA, not RLIMIT_AS: CUDA reserves far more address space than it uses (PROT_NONE
        # mappings, which RLIMIT_DATA does not count), so an address-space limit stops torch from
        # seeing the GPU at all, while every allocation that takes memory still counts here.
        resource.setrlimit(resource.RLIMIT_DATA, (MEMORY_BYTES, MEMORY_BYTES))
    if CPU_SECONDS:
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 5))


def join_job_cgroup() -> int:
    """In a launcher: join the job's cgroup, if the grader made one (COURSE_SANDBOX_CGROUP).

    Returns the process limit the supervisor must set itself: 0 where the cgroup holds it.
    """
    description = os.environ.get(cgroups.CGROUP, "")
    if description:
        problem = cgroups.join(description)
        if not problem:
            return 0
        report.record("limits", problem)
    return PROCESSES


def limit_processes(count: int) -> bool:
    """In the supervisor, in the sandbox's own user namespace: at most `count` processes and threads.

    Not on Linux before 5.14, where RLIMIT_NPROC counts every process of the uid on the machine (the
    grading account's, or every sandbox's as root): there an honest kernel could not start a thread.
    """
    if count <= 0 or not counts_per_namespace(os.uname().release):
        return False
    resource.setrlimit(resource.RLIMIT_NPROC, (count, count))
    return True


def counts_per_namespace(release: str) -> bool:
    """Whether a Linux kernel of this release counts RLIMIT_NPROC per user namespace (5.14 and later)."""
    numbers = [int(part) for part in release.split("-")[0].split(".")[:2] if part.isdigit()]
    return len(numbers) == 2 and tuple(numbers) >= (5, 14)
