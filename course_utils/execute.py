"""`course execute`: run solution notebooks top to bottom with papermill."""
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import papermill
from papermill.exceptions import PapermillExecutionError
from tqdm.auto import tqdm

from course_utils.course import Course

CELL_TIMEOUT_S = 900  # the longest cell is training in notebook 07 (full mode)
# The kernel's own log (e.g. ipykernel's warning about unencrypted local TCP) is noise here.
QUIET_KERNEL = ["--IPKernelApp.log_level=ERROR"]


@dataclass
class Run:
    notebook: str
    status: str  # ok | failed
    seconds: float
    detail: str = ""
    output: Path = None


def _failure(exc):
    if isinstance(exc, PapermillExecutionError):
        first_line = (exc.evalue or "").strip().splitlines()[:1]
        return f"cell {exc.cell_index}: {exc.ename}: {first_line[0] if first_line else ''}".strip()
    return f"{type(exc).__name__}: {exc}"


def execute(course: Course, ids, device="auto", fast=True, seed=0, out_dir=None):
    """Run each solution notebook into build/executed/; a failure is reported, the rest still run."""
    out_dir = Path(out_dir or course.root / "build" / "executed")
    out_dir.mkdir(parents=True, exist_ok=True)
    # Kernels are started by name (python3): make this environment's python the one found.
    os.environ["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    runs = []
    bar = tqdm(ids, desc="executing", unit="notebook", file=sys.stderr)
    for aid in bar:
        bar.set_postfix_str(aid)
        source = course.solution(aid)
        target = out_dir / source.name
        start = time.perf_counter()
        try:
            papermill.execute_notebook(
                str(source), str(target), parameters={"device": device, "fast": bool(fast), "seed": seed},
                kernel_name="python3", cwd=str(source.parent), progress_bar=False,
                execution_timeout=CELL_TIMEOUT_S, extra_arguments=QUIET_KERNEL)
            runs.append(Run(aid, "ok", time.perf_counter() - start, output=target))
        except Exception as exc:  # noqa: BLE001  (any failure is reported; the rest still run)
            runs.append(Run(aid, "failed", time.perf_counter() - start, _failure(exc), target))
    bar.close()
    return runs
