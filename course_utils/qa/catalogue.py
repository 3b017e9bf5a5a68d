"""`course catalogue`: prove every grader with the course's catalogue of learner answers.

tests/bug_catalogue/<assignment>/<answer grade_id>/ holds `wrong_*.py` (a realistic learner
mistake each) and `right_*.py` (a correct answer written differently from the solution).
Each file is the full source of that answer cell. Every entry is swapped into an otherwise
perfect submission and graded as `course autograde` grades students (sanitized, in a
private job, in a sandboxed kernel, under the same limits): wrong answers must lose points,
right answers must keep full marks; the perfect submission must score full marks and the
blank release zero.
"""
from __future__ import annotations

import ast
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tabulate import tabulate

from course_utils.course import Course, CourseError
from course_utils.grader.pipeline import autograde
from course_utils.qa.sample_class import (
    Messages,
    failure_messages,
    kernel_device,
    write_class,
)
from course_utils.qa.submissions import blank, perfect, with_answers

if TYPE_CHECKING:
    from nbformat import NotebookNode

Kind = Literal["wrong", "right"]
Expected = Literal["full", "zero", "less"]


@dataclass(frozen=True)
class Entry:
    assignment: str
    grade_id: str
    kind: Kind
    name: str
    path: Path

    @property
    def student_id(self) -> str:
        return f"{self.kind}--{self.grade_id}--{self.name}"

    @property
    def doc(self) -> str:
        return ast.get_docstring(ast.parse(self.path.read_text())) or ""


@dataclass
class Verdict:
    assignment: str
    exercise: str
    entry: str
    score: float
    max_score: float
    expected: Expected
    detail: str
    messages: Messages = field(default_factory=dict)
    device: str = ""            # where the graded kernel ran ("NVIDIA H100 80GB HBM3", "cpu")

    @property
    def ok(self) -> bool:
        if self.expected == "full":
            return self.score == self.max_score
        if self.expected == "zero":
            return self.score == 0
        return self.score < self.max_score

    @property
    def verdict(self) -> str:
        return "ok" if self.ok else "MISS"


def catalogue_root(course: Course) -> Path:
    return course.root / "tests" / "bug_catalogue"


def load(course: Course, aid: str) -> list[Entry]:
    """The catalogue entries of `aid`, sorted by exercise and file name."""
    folder = catalogue_root(course) / aid
    entries = []
    for path in sorted(folder.glob("*/*.py")) if folder.is_dir() else []:
        kind, _, name = path.stem.partition("_")
        if kind not in ("wrong", "right") or not name:
            raise CourseError(f"{path}: catalogue files are named wrong_<what>.py or right_<what>.py")
        entries.append(Entry(aid, path.parent.name, kind, name, path))
    return entries


def run(course: Course, ids: list[str], workers: int = 2, progress: bool = False) -> list[Verdict]:
    """Grade the perfect and blank submissions and every catalogue entry of each of `ids`.

    One made-up class (a student per entry) graded by `course autograde`'s own pipeline,
    `workers` submissions at a time.
    """
    entries = {aid: load(course, aid) for aid in ids}

    def hand_in(aid: str, release_nb: NotebookNode, solution_nb: NotebookNode) -> dict[str, NotebookNode]:
        made = {"perfect": perfect(release_nb, solution_nb), "blank": blank(release_nb, solution_nb)}
        for entry in entries[aid]:
            made[entry.student_id] = with_answers(release_nb, solution_nb, {entry.grade_id: entry.path.read_text()})
        return made

    with tempfile.TemporaryDirectory(prefix="course-catalogue-") as tmp:
        scratch = write_class(course, ids, Path(tmp), hand_in)
        records = {(r.student_id, r.assignment): r
                   for r in autograde(scratch, ids, workers=workers, force=True, progress=progress)}

    def verdict(aid: str, student: str, exercise: str, entry: str, expected: Expected) -> Verdict:
        record = records[student, aid]
        detail = record.detail if record.status == "graded" else f"{record.status}: {record.detail}\n{record.log}"
        return Verdict(aid, exercise, entry, record.score, record.max_score, expected, detail,
                       failure_messages(record), kernel_device(record))

    return [verdict_ for aid in ids for verdict_ in (
        verdict(aid, "perfect", "(all)", "perfect submission", "full"),
        verdict(aid, "blank", "(all)", "blank release", "zero"),
        *(verdict(aid, e.student_id, e.grade_id, f"{e.kind}_{e.name}", "full" if e.kind == "right" else "less")
          for e in entries[aid]))]


def table(verdicts: list[Verdict]) -> str:
    return tabulate([(v.assignment, v.exercise, v.entry, f"{v.score:g}/{v.max_score:g}",
                      {"full": "full marks", "zero": "zero", "less": "loses points"}[v.expected], v.verdict)
                     for v in verdicts],
                    headers=["notebook", "exercise", "entry", "score", "must", "verdict"])
