"""A training run's safety limit: runs are sized by steps, and the clock only guards.

For students on slow or busy machines. The notebooks that train (07, 08, 10) run a fixed number
of steps per mode, so that the same seed and mode give the same numbers on any machine, and the
text's numbers are those. A run still stops at a safety limit in seconds, far above what the
steps take (a learner's busy laptop included), so that a machine many times too slow ends the
notebook in finite time. When the limit stops a run, the numbers after it come from a model
trained less than the text assumes: `SafetyLimit.stopped` says so in a box now and at the top of
every cell that runs after it (IPython's `pre_run_cell` event), so that no number below it is read
without the warning.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from course_utils.notebook.readout import _shell, show

_warnings: list[str] = []   # what stopped early in this kernel, in the order it happened
_hooked: set[int] = set()   # the shells whose pre_run_cell shows them


class SafetyLimit:
    """The clock of one run: started when made, `reached` once `seconds` have passed."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.perf_counter) -> None:
        self.seconds, self.clock = float(seconds), clock
        self.started = clock()

    def reached(self) -> bool:
        return self.clock() - self.started >= self.seconds

    def stopped(self, what: str, done: int, planned: int, shell: object | None = None) -> bool:
        """After a run of `planned` steps that did `done`: whether the limit stopped it early, and if it
        did, a box that says so, shown now and above the output of every later cell."""
        if done >= planned:
            return False
        warn(f"The run `{what}` stopped at its safety limit of {self.seconds:.0f} s after {done} of {planned} "
             "steps: this machine is much slower or busier than the notebook was sized for. Every number and figure "
             "from here on comes from a model trained for fewer steps than this mode plans, so it is not the run "
             "the text describes. Run the notebook again on a quieter machine, or raise `safety_limit_s` in the "
             "configuration cell.",
             shell)
        return True


def warn(message: str, shell: object | None = None) -> None:
    """Show `message` in a box now and at the top of every later cell's output in this kernel."""
    _warnings.append(message)
    shell = shell if shell is not None else _shell()
    if shell is not None and id(shell) not in _hooked:
        _hooked.add(id(shell))
        shell.events.register("pre_run_cell", lambda *_: _show())
    _show([message])


def box(messages: list[str]) -> dict[str, str]:
    """The warning as a display bundle: a Markdown quote in JupyterLab, plain lines elsewhere."""
    return {"text/markdown": "\n>\n".join(f"> ⚠ **Stopped early.** {m}" for m in messages),
            "text/plain": "\n".join(f"!! Stopped early. {m}" for m in messages)}


def _show(messages: list[str] | None = None) -> None:
    show(box(messages if messages is not None else _warnings))
