"""`course execute`: run solution notebooks top to bottom with papermill."""
from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tabulate import tabulate

from course_utils.course import Course
from course_utils.qa import figure_audit

CELL_TIMEOUT_S = 900  # the longest cell is training in notebook 07 (full mode)
# The kernel's own log (e.g. ipykernel's warning about unencrypted local TCP) is noise here.
QUIET_KERNEL = ["--IPKernelApp.log_level=ERROR"]


@dataclass
class Run:
    notebook: str
    status: Literal["ok", "failed"]
    seconds: float
    detail: str = ""
    output: Path | None = None
    cpu_seconds: float | None = None   # the kernel's own CPU time (and its children's), where Linux tells it


def kernel_cpu_seconds(pid: int | None) -> float | None:
    """CPU seconds process `pid` and the children it waited for have used, from /proc (None elsewhere).

    Read from /proc rather than psutil, which the course does not install, and only on Linux, where
    CI and the grading machines run; elsewhere the table leaves the column empty.
    """
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError, TypeError):
        return None
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")   # utime, stime, cutime, cstime


def _timed_kernel_manager(sink: dict):
    """A kernel manager class that notes its kernel's CPU seconds in `sink` just before it ends the kernel
    (nbclient makes the manager; a class of its own per run, since notebooks run in threads at once)."""
    from jupyter_client.manager import AsyncKernelManager

    class TimedKernelManager(AsyncKernelManager):
        async def shutdown_kernel(self, now: bool = False, restart: bool = False) -> None:
            process = getattr(self.provisioner, "process", None)
            sink["cpu_seconds"] = kernel_cpu_seconds(getattr(process, "pid", None))
            await super().shutdown_kernel(now=now, restart=restart)

    return TimedKernelManager


def kernel_arguments() -> list[str]:
    """Arguments for the kernels papermill starts: quiet, and the figure audit when it is asked for.

    The audit reaches kernels here, through the executor, so that a student's kernel never
    imports it (it runs only where COURSE_FIGURE_AUDIT names a file).
    """
    return QUIET_KERNEL + ([figure_audit.KERNEL_ARGUMENT] if os.environ.get(figure_audit.ENV) else [])


def _failure(exc: BaseException) -> str:
    from papermill.exceptions import PapermillExecutionError

    if isinstance(exc, PapermillExecutionError):
        first_line = (exc.evalue or "").strip().splitlines()[:1]
        return f"cell {exc.cell_index}: {exc.ename}: {first_line[0] if first_line else ''}".strip()
    return f"{type(exc).__name__}: {exc}"


def execute(course: Course, ids: list[str], device: str = "auto", fast: bool = True, seed: int = 0,
            out_dir: Path | None = None, workers: int = 1) -> list[Run]:
    """Run each solution notebook into build/executed/, `workers` at a time; a failure is reported,
    the rest still run. The runs come back in the order of `ids`."""
    import papermill  # seconds to import: only when notebooks run
    from tqdm.auto import tqdm

    out_dir = Path(out_dir or course.build("executed"))
    out_dir.mkdir(parents=True, exist_ok=True)
    # Kernels are started by name (python3): make this environment's python the one found.
    os.environ["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])

    def run(aid: str) -> Run:
        source = course.solution(aid)
        target = out_dir / source.name
        start, kernel = time.perf_counter(), {}
        try:
            papermill.execute_notebook(
                str(source), str(target), parameters={"device": device, "fast": bool(fast), "seed": seed},
                kernel_name="python3", progress_bar=False, execution_timeout=CELL_TIMEOUT_S,
                extra_arguments=kernel_arguments(), kernel_manager_class=_timed_kernel_manager(kernel),
                # The kernel's folder, handed to nbclient (which starts the kernel there), not
                # papermill's `cwd`: that one chdirs the whole process, so two notebooks run in
                # threads could start a kernel in the other's folder.
                resources={"metadata": {"path": str(source.parent)}})
            return Run(aid, "ok", time.perf_counter() - start, output=target, cpu_seconds=kernel.get("cpu_seconds"))
        except Exception as exc:  # noqa: BLE001  (any failure is reported; the rest still run)
            return Run(aid, "failed", time.perf_counter() - start, _failure(exc), target, kernel.get("cpu_seconds"))

    workers = max(1, min(workers, len(ids)))
    bar = tqdm(total=len(ids), desc="executing", unit="notebook", file=sys.stderr)
    # Kernels that each spread over every core fight over them: each gets its share (unless set).
    threads = {} if workers == 1 or "OMP_NUM_THREADS" in os.environ else {
        "OMP_NUM_THREADS": str(max(1, (os.cpu_count() or 1) // workers))}
    os.environ.update(threads)
    try:
        with ThreadPoolExecutor(workers) as pool:  # threads: each run waits on its own kernel process
            # Later notebooks run longest (07 trains a model): started first, they end the run sooner.
            futures = {aid: pool.submit(run, aid) for aid in reversed(ids)}
            for future in as_completed(futures.values()):
                bar.set_postfix_str(future.result().notebook)
                bar.update(1)
    finally:
        for name in threads:
            os.environ.pop(name, None)
        bar.close()
    return [futures[aid].result() for aid in ids]


def execution_table(runs: list[Run]) -> str:
    """One row per notebook: its status, wall-clock seconds and its kernel's CPU seconds (what a run
    costs on any machine; the wall clock also counts waiting for a busy one)."""
    def cpu(seconds: float | None) -> str:
        return "" if seconds is None else f"{seconds:.1f}"

    rows = [(r.notebook, r.status, f"{r.seconds:.1f}", cpu(r.cpu_seconds), r.detail) for r in runs]
    total = sum(r.seconds for r in runs)
    known = [r.cpu_seconds for r in runs if r.cpu_seconds is not None]
    rows.append(("total", f"{sum(r.status == 'ok' for r in runs)}/{len(runs)} ok", f"{total:.1f}",
                 cpu(sum(known)) if len(known) == len(runs) else "", ""))
    return tabulate(rows, headers=["notebook", "status", "seconds", "kernel CPU s", "detail"], tablefmt="simple")
