"""nbgrader preprocessors the course adds to autograde, and the config that puts them in place.

They work through nbgrader's own hook: `Autograde.sanitize_preprocessors` and
`Autograde.autograde_preprocessors`, set in each grading job's nbgrader_config.py by
`configure_autograde`. Whatever else the course's config sets for those lists is kept. One
preprocessor per module, as nbgrader's own. What they repair is written to the job's report
(COURSE_SANDBOX_REPORT), which becomes flags.
"""
from __future__ import annotations

from nbgrader.preprocessors import DeduplicateIds, Execute, LimitOutput, OverwriteCells
from traitlets.config import Config

from course_utils.grader.judge.preprocessors.execute_verdicts import ExecuteVerdicts
from course_utils.grader.judge.preprocessors.keep_first_grade_id import KeepFirstGradeId
from course_utils.grader.judge.preprocessors.limit_output_size import LimitOutputSize
from course_utils.grader.judge.preprocessors.restore_graded_cells import RestoreGradedCells
from course_utils.grader.judge.preprocessors.strip_cell_metadata import StripCellMetadata

__all__ = ["ExecuteVerdicts", "KeepFirstGradeId", "LimitOutputSize", "RestoreGradedCells", "StripCellMetadata",
           "configure_autograde"]


def _swapped(config: Config, trait: str, swaps: dict[type, type]) -> list:
    """The course's Autograde.<trait> list (nbgrader's default when unset) with classes swapped."""
    from nbgrader.converters import Autograde
    from traitlets.config.loader import LazyConfigValue

    default = Autograde.class_traits()[trait].default()
    current = config.Autograde[trait] if trait in config.Autograde else default
    if isinstance(current, LazyConfigValue):  # the course's config appended to nbgrader's list
        current = current.get_value(default)
    return [swaps.get(pp, pp) for pp in current]


def configure_autograde(config: Config, cell_timeout: int, sockets: str = "", max_lines: int = 200,
                        max_traceback: int = 40, max_chars: int = 20_000, salt: str = "") -> Config:
    """Set up `config` (a job's `c`) for grading: time limit per cell, repairs, output limits, the
    kernel reached over Unix sockets at `sockets`-N (the sandboxed kernel has no network), and test
    cells judged in the grader (ExecuteVerdicts) with inputs drawn from `salt` (hex)."""
    config.Execute.timeout = cell_timeout
    config.ExecuteVerdicts.salt = salt
    config.KernelManager.client_class = "course_utils.grader.judge.preprocessors.execute_verdicts.CappedKernelClient"
    if sockets:
        config.KernelManager.transport = "ipc"
        config.KernelManager.ip = sockets
    # nbclient's 60 s to start a kernel is not the student's time: on a loaded machine a graded
    # kernel (sandbox, isolation) can take longer. The job's own limit still holds.
    config.Execute.startup_timeout = max(120, cell_timeout)
    config.Execute.kernel_name = "python3"
    sanitize = _swapped(config, "sanitize_preprocessors", {DeduplicateIds: KeepFirstGradeId})
    if OverwriteCells in sanitize and RestoreGradedCells not in sanitize:
        sanitize.insert(sanitize.index(OverwriteCells), RestoreGradedCells)
    if StripCellMetadata not in sanitize:  # after the repairs, which put back what the gradebook has
        after = max((sanitize.index(p) for p in (RestoreGradedCells, OverwriteCells) if p in sanitize), default=-1)
        sanitize.insert(after + 1 if after >= 0 else len(sanitize), StripCellMetadata)
    config.Autograde.sanitize_preprocessors = sanitize
    config.Autograde.autograde_preprocessors = _swapped(config, "autograde_preprocessors",
                                                        {LimitOutput: LimitOutputSize, Execute: ExecuteVerdicts})
    # Megabytes of output stay in the student's kernel, not in the gradebook or feedback.
    config.LimitOutputSize.max_lines = max_lines
    config.LimitOutputSize.max_traceback = max_traceback
    config.LimitOutputSize.max_chars = max_chars
    return config
