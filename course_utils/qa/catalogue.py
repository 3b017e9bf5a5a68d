"""`course catalogue`: prove every grader with the course's catalogue of learner answers.

tests/bug_catalogue/<assignment>/<answer grade_id>/ holds `wrong_*.py` (a realistic learner
mistake each) and `right_*.py` (a correct answer written differently from the solution).
Each file is the full source of that answer cell. Every entry is swapped into an otherwise
perfect submission and graded as `course autograde` grades students (sanitized, in a
private job, in a sandboxed kernel, under the same limits): wrong answers must lose points,
right answers must keep full marks, with no flag; the perfect submission must score full
marks and the blank release zero.

A wrong answer is also *seen* when a visible test cell (a test cell with no hidden block,
which the student can run before handing in) fails on it: `rates` gives, per exercise, the
share of wrong answers the whole grader catches and the share the visible tests alone catch.

Right answers of different exercises share a submission (the k-th right answer of every
exercise in the k-th): full marks for it prove each of them right, and a third of the
catalogue's grading time is saved. Where such a submission loses points, each of its
answers is graded again on its own, so a verdict always names the answer at fault.
"""
from __future__ import annotations

import ast
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tabulate import tabulate

from course_utils import ipynb
from course_utils.course import Course, CourseError
from course_utils.grader.pipeline import autograde
from course_utils.grader.records import GradeRecord
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
    flags: tuple[str, ...] = ()  # the grader's flags: a right answer must raise none
    seen: bool = False           # a visible test cell failed (what the student sees before handing in)

    @property
    def ok(self) -> bool:
        if self.expected == "full":
            return self.score == self.max_score and not self.flags
        if self.expected == "zero":
            return self.score == 0
        return self.score < self.max_score

    @property
    def verdict(self) -> str:
        return "ok" if self.ok else "MISS"


@dataclass(frozen=True)
class ExerciseRate:
    """How much of one exercise's catalogue of wrong answers the grader catches."""
    assignment: str
    exercise: str
    wrong: int
    caught: int    # lose points when graded (visible and hidden tests)
    seen: int      # fail a visible test cell: the student learns of the mistake before handing in


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


def visible_test_cells(course: Course, aid: str) -> set[str]:
    """grade_ids of `aid`'s test cells that hold no hidden test: all of them runs in the student's copy."""
    cells = set()
    for cell in ipynb.read(course.solution(aid)).cells:
        meta = ipynb.nbgrader_meta(cell)
        if meta.get("grade") and not meta.get("solution") and "BEGIN HIDDEN TESTS" not in cell.source:
            cells.add(meta["grade_id"])
    return cells


def right_groups(entries: list[Entry]) -> dict[str, list[Entry]]:
    """Right answers to hand in together: the k-th right answer of every exercise in submission k."""
    by_exercise: dict[str, list[Entry]] = {}
    for entry in entries:
        if entry.kind == "right":
            by_exercise.setdefault(entry.grade_id, []).append(entry)
    groups: dict[str, list[Entry]] = {}
    for answers in by_exercise.values():
        for k, entry in enumerate(answers):
            groups.setdefault(f"right--together--{k}", []).append(entry)
    return groups


def _grade(course: Course, ids: list[str], hand_in: Callable[[str, NotebookNode, NotebookNode],
           dict[str, NotebookNode]], workers: int, progress: bool) -> dict[tuple[str, str], GradeRecord]:
    with tempfile.TemporaryDirectory(prefix="course-catalogue-") as tmp:
        scratch = write_class(course, ids, Path(tmp), hand_in)
        return {(r.student_id, r.assignment): r
                for r in autograde(scratch, ids, workers=workers, force=True, progress=progress)}


def run(course: Course, ids: list[str], workers: int = 2, progress: bool = False) -> list[Verdict]:
    """Grade the perfect and blank submissions and every catalogue entry of each of `ids`.

    One made-up class (a student per wrong answer, per group of right answers) graded by
    `course autograde`'s own pipeline, `workers` submissions at a time.
    """
    entries = {aid: load(course, aid) for aid in ids}
    groups = {aid: right_groups(entries[aid]) for aid in ids}

    def hand_in(aid: str, release_nb: NotebookNode, solution_nb: NotebookNode) -> dict[str, NotebookNode]:
        made = {"perfect": perfect(release_nb, solution_nb), "blank": blank(release_nb, solution_nb)}
        for entry in entries[aid]:
            if entry.kind == "wrong":
                made[entry.student_id] = with_answers(release_nb, solution_nb,
                                                      {entry.grade_id: entry.path.read_text()})
        for student, together in groups[aid].items():
            made[student] = with_answers(release_nb, solution_nb, {e.grade_id: e.path.read_text() for e in together})
        return made

    records = _grade(course, ids, hand_in, workers, progress)
    owner = {(aid, e.student_id): student for aid in ids for student, together in groups[aid].items()
             for e in together}
    alone = {aid: [e for e in entries[aid] if e.kind == "right" and not _fair(records[owner[aid, e.student_id], aid])]
             for aid in ids}
    if any(alone.values()):  # a group lost points or was flagged: grade its answers one by one
        again = [aid for aid in ids if alone[aid]]
        records.update(_grade(course, again, lambda aid, release_nb, solution_nb: {
            e.student_id: with_answers(release_nb, solution_nb, {e.grade_id: e.path.read_text()})
            for e in alone[aid]}, workers, progress))
        for aid in again:
            owner.update({(aid, e.student_id): e.student_id for e in alone[aid]})

    visible = {aid: visible_test_cells(course, aid) for aid in ids}

    def verdict(aid: str, student: str, exercise: str, entry: str, expected: Expected) -> Verdict:
        record = records[owner.get((aid, student), student), aid]
        detail = record.detail if record.status == "graded" else f"{record.status}: {record.detail}\n{record.log}"
        messages = failure_messages(record)
        return Verdict(aid, exercise, entry, record.score, record.max_score, expected, detail,
                       messages, kernel_device(record), submission_flags(record),
                       seen=bool(visible[aid] & set(messages)))

    return [verdict_ for aid in ids for verdict_ in (
        verdict(aid, "perfect", "(all)", "perfect submission", "full"),
        verdict(aid, "blank", "(all)", "blank release", "zero"),
        *(verdict(aid, e.student_id, e.grade_id, f"{e.kind}_{e.name}", "full" if e.kind == "right" else "less")
          for e in entries[aid]))]


def submission_flags(record: GradeRecord) -> tuple[str, ...]:
    """The flags about the submission itself (a machine without isolation flags every job alike)."""
    return tuple(flag for flag in record.flags if not flag.startswith("not isolated"))


def _fair(record: GradeRecord) -> bool:
    return record.status == "graded" and record.score == record.max_score and not submission_flags(record)


def rates(verdicts: list[Verdict]) -> list[ExerciseRate]:
    """Per exercise (in catalogue order): wrong answers, how many the grader catches, how many visible tests do."""
    found: dict[tuple[str, str], list[Verdict]] = {}
    for v in verdicts:
        if v.expected == "less":
            found.setdefault((v.assignment, v.exercise), []).append(v)
    return [ExerciseRate(aid, exercise, len(vs), sum(v.ok for v in vs), sum(v.ok and v.seen for v in vs))
            for (aid, exercise), vs in found.items()]


def rates_table(found: list[ExerciseRate]) -> str:
    def share(n: int, of: int) -> str:
        return f"{n}/{of} ({100 * n / of:.0f}%)" if of else "-"
    return tabulate([(r.assignment, r.exercise, r.wrong, share(r.caught, r.wrong), share(r.seen, r.wrong))
                     for r in found],
                    headers=["notebook", "exercise", "wrong answers", "caught when graded", "caught by visible tests"])


def table(verdicts: list[Verdict]) -> str:
    return tabulate([(v.assignment, v.exercise, v.entry, f"{v.score:g}/{v.max_score:g}",
                      {"full": "full marks", "zero": "zero", "less": "loses points"}[v.expected], v.verdict)
                     for v in verdicts],
                    headers=["notebook", "exercise", "entry", "score", "must", "verdict"])
