"""Per-process limits of a graded kernel: memory (RLIMIT_DATA) and CPU time, set by its launcher.

For the sandbox's launchers: bwrap, the supervisor and the kernel inherit these, so that one
process of a student's cannot take more than its job may. `course autograde` (jobs.py) sets them
through the environment of the kernel's launcher.
"""
from __future__ import annotations

import os
import resource


def _environ_int(name: str) -> int:
    return int(os.environ.get(name, "0") or 0)


MEMORY_BYTES = _environ_int("COURSE_SANDBOX_MEMORY_BYTES")
CPU_SECONDS = _environ_int("COURSE_SANDBOX_CPU_SECONDS")


def apply_limits() -> None:
    """Memory and CPU-time limits, inherited by bwrap, the supervisor and the kernel."""
    if MEMORY_BYTES:
        # RLIMIT_DATA, not RLIMIT_AS: CUDA reserves far more address space than it uses (PROT_NONE
        # mappings, which RLIMIT_DATA does not count), so an address-space limit stops torch from
        # seeing the GPU at all, while every allocation that takes memory still counts here.
        resource.setrlimit(resource.RLIMIT_DATA, (MEMORY_BYTES, MEMORY_BYTES))
    if CPU_SECONDS:
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 5))
