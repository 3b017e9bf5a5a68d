"""What grading one (student, assignment) gives: the one record every part of the course reads.

`course autograde`, the catalogue, the demo and the benchmarks all get `GradeRecord`s from
`pipeline.autograde`; grades.csv and the journal are written from them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

# graded; error (the detail says why); missing (nothing handed in); unmatched (something was handed
# in, but no notebook could be taken for the assignment: the detail says what was there).
Status = Literal["graded", "error", "missing", "unmatched"]
STATUSES: tuple[Status, ...] = ("graded", "error", "missing", "unmatched")
# Statuses that need someone to act: `course autograde` exits non-zero when a row has one.
NEEDS_ACTION: tuple[Status, ...] = ("error", "unmatched")
# What a row adds to its detail when its error may be the grading machine's rather than the
# notebook's (an internal error, a kernel lost twice, nbgrader killed, a gradebook out of reach).
RETRIED = "the next `course autograde` grades it again (the cause may be the grading machine's, not the notebook's)"

# grades.csv, one row per record; also what the journal keeps of each. `score` counts every
# point the tests (and any grader, in the formgrader) gave, before the late penalty, as
# nbgrader's `raw_score`; `late_submission_penalty` is nbgrader's, and `timestamp` the time the
# exchange stamped on the submission (UTC, "" when it came without one). `held` is "yes" where the flags
# hold the grade for the instructor (see HOLDING).
CSV_COLUMNS = ["student_id", "assignment", "score", "max_score", "late_submission_penalty", "timestamp",
               "status", "detail", "held", "flags"]
# Flags that hold a grade for the instructor: evidence about what the student did, not about the
# machine (not isolated, not limited per job) or a repair that costs nothing (a copied cell, a misnamed file).
HOLDING = ("source:", "edited graded cell:", "processes:")
# Flags about the grading machine rather than the submission: every job on it gets them alike.
MACHINE = ("not isolated", "not limited per job")


@dataclass
class GradeRecord:
    student_id: str
    assignment: str
    status: Status                 # see Status
    score: float = 0.0
    max_score: float = 0.0
    detail: str = ""               # "all tests passed", "failed: <cells>", or the error, for the student
    flags: list[str] = field(default_factory=list)   # what the instructor should look at (never scored)
    cells: dict[str, tuple[float, float]] = field(default_factory=dict, repr=False)  # test cell -> (score, max)
    autograded: str = field(default="", repr=False)  # the graded notebook's JSON, "" if none
    log: str = field(default="", repr=False)         # the end of nbgrader's log (for errors)
    seconds: float = 0.0
    manual: list[str] = field(default_factory=list)  # grade cells a person grades (no auto score)
    comments: dict[str, str | None] = field(default_factory=dict, repr=False)  # nbgrader's auto comments
    timestamp: str = ""            # the submission's timestamp.txt (from nbgrader's exchange), "" if none
    late_submission_penalty: float = 0.0
    retry: bool = False            # an error that may be the machine's (see RETRIED): graded again by the next run

    def summary(self) -> dict:
        """The CSV columns of this record (flags joined), as the journal and grades.csv keep them."""
        return {"student_id": self.student_id, "assignment": self.assignment, "score": self.score,
                "max_score": self.max_score, "late_submission_penalty": self.late_submission_penalty,
                "timestamp": self.timestamp, "status": self.status, "detail": self.detail,
                "held": "yes" if self.held else "", "flags": list(self.flags)}

    @property
    def held(self) -> bool:
        """Graded, but held for the instructor: a flag says what to look at (the formgrader lists it)."""
        return self.status == "graded" and any(flag.startswith(HOLDING) for flag in self.flags)

    @classmethod
    def from_summary(cls, summary: dict) -> GradeRecord:
        return cls(summary["student_id"], summary["assignment"], summary["status"], float(summary["score"]),
                   float(summary["max_score"]), summary["detail"], list(summary["flags"]),
                   timestamp=summary.get("timestamp") or "",
                   late_submission_penalty=float(summary.get("late_submission_penalty") or 0.0))

    @property
    def full_marks(self) -> bool:
        return self.status == "graded" and self.score == self.max_score


def score_table(records: list[GradeRecord], ids: list[str]) -> str:
    """One line per student, one column per notebook: score/max (or the status when not graded)."""
    from collections import defaultdict

    from tabulate import tabulate

    by_student: dict[str, dict[str, tuple[str, float, float]]] = defaultdict(dict)
    for record in records:
        cell = f"{record.score:g}/{record.max_score:g}" if record.status == "graded" else record.status
        by_student[record.student_id][record.assignment] = (cell, record.score, record.max_score)
    shown = [aid for aid in ids if any(aid in marks for marks in by_student.values())]
    table = []
    for student, marks in sorted(by_student.items()):
        got = sum(m[1] for m in marks.values())
        most = sum(m[2] for m in marks.values())
        table.append([student, *(marks.get(aid, ("-",))[0] for aid in shown), f"{got:g}/{most:g}"])
    headers = ["student", *(aid[:2] for aid in shown), "total"]
    return tabulate(table, headers=headers, tablefmt="simple")


def records_table(records: list[GradeRecord], width: int = 60) -> str:
    """One line per record: what `course autograde` prints."""
    from tabulate import tabulate

    def short(text: str) -> str:
        return text if len(text) <= width else text[:width - 1] + "…"

    return tabulate([(r.student_id, r.assignment, f"{r.score:g}", f"{r.max_score:g}",
                      r.status + (", held" if r.held else ""), short(r.detail), short("; ".join(r.flags)))
                     for r in records],
                    headers=["student", "assignment", "score", "max", "status", "detail", "flags"])
