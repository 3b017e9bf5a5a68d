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

Most of the catalogue's time is kernels starting (importing torch), so entries share
submissions where that cannot change a verdict:

- right answers of different exercises (the k-th right answer of every exercise in the
  k-th): full marks for it prove each of them right;
- wrong answers of exercises whose reaches do not meet (`grouping`: no test cell and no
  answer cell that both can change), at most one per exercise, and only entries that do
  nothing but define their exercise's names: each verdict (score, messages, seen) is read
  from the test cells its own exercise reaches, which no other member can change.

Whatever a shared submission cannot prove is graded again on its own: a right answer in
a submission that lost points or was flagged; a wrong answer not caught, or not caught by
the visible tests; every member of a submission that did not run normally (an error, a
flag, the perfect submission short of full marks, a failing cell no member reaches). So
a shared submission can never hide a miss, and a verdict always names the answer at fault.
`run(..., alone=True)` (`course catalogue --alone`) grades every entry on its own: the
reference the tests compare the shared grading with.
"""
from __future__ import annotations

import ast
import os
import tempfile
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from tabulate import tabulate

from course_utils import ipynb
from course_utils.course import Course, CourseError
from course_utils.grader.engine.pipeline import autograde
from course_utils.grader.engine.records import MACHINE, GradeRecord
from course_utils.qa import grouping
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
        # The same test inputs on every run, so that a verdict holds on a rerun; another secret
        # (COURSE_CATALOGUE_SECRET) draws other inputs, which every verdict must survive too.
        secret = scratch.build("grading", "secret")
        secret.parent.mkdir(parents=True, exist_ok=True)
        secret.write_bytes(os.environ.get("COURSE_CATALOGUE_SECRET", "the course catalogue").encode())
        return {(r.student_id, r.assignment): r
                for r in autograde(scratch, ids, workers=workers, force=True, progress=progress)}


def wrong_groups(course: Course, aid: str, entries: list[Entry]) -> tuple[list[list[Entry]], grouping.Notebook]:
    """Wrong answers to hand in together (see `grouping`), the largest exercises' first; and the analysis."""
    sources: dict[str, list[str]] = {}
    for entry in entries:
        sources.setdefault(entry.grade_id, []).append(entry.path.read_text())
    notebook = grouping.analyse(ipynb.read(course.solution(aid)), sources)
    wrong = [e for e in entries if e.kind == "wrong"]
    size = Counter(e.grade_id for e in wrong)
    wrong.sort(key=lambda e: -size[e.grade_id])  # stable: catalogue order within an exercise
    by_key = {e.student_id: e for e in wrong}
    packed = grouping.pack([(e.grade_id, e.student_id, e.path) for e in wrong], notebook)
    return [[by_key[key] for _, key, _ in group] for group in packed], notebook


@dataclass
class _Share:
    """What one member of a group of wrong answers gets from the group's record (None: grade it alone)."""
    score: float
    messages: Messages
    detail: str


def _shares(record: GradeRecord, perfect_fair: bool, members: list[Entry],
            notebook: grouping.Notebook) -> dict[str, _Share | None]:
    """Each member's score and messages, read from the test cells its answer reaches, as if graded alone.

    Trusted only when the notebook ran normally and every failing cell lies in one member's reach.
    """
    reached = {e.student_id: notebook.reached_cells(e.grade_id) for e in members}
    messages = failure_messages(record)
    lost = {cell: most - got for cell, (got, most) in record.cells.items() if got < most}
    normal = (perfect_fair and record.status == "graded" and not submission_flags(record)
              and not record.manual and (set(lost) | set(messages)) <= set().union(*reached.values()))
    if not normal:
        return dict.fromkeys(reached)
    shares: dict[str, _Share | None] = {}
    for student, cells in reached.items():
        mine = sorted(cell for cell in lost if cell in cells)
        shares[student] = _Share(record.max_score - sum(lost[c] for c in mine),
                                 {c: m for c, m in messages.items() if c in cells},
                                 ("failed: " + ", ".join(mine)) if mine else "all tests passed")
    return shares


def run(course: Course, ids: list[str], workers: int = 2, progress: bool = False, alone: bool = False,
        stats: dict[str, int | list[str]] | None = None, keep: Callable[[Entry], bool] | None = None) -> list[Verdict]:
    """Grade the perfect and blank submissions and every catalogue entry of each of `ids`.

    One made-up class graded by `course autograde`'s own pipeline, `workers` submissions at a
    time. Right answers share submissions (`right_groups`); so do wrong answers of exercises
    whose reaches do not meet (`wrong_groups`), each verdict read from its own exercise's
    reach. A verdict that a shared submission cannot prove (a wrong answer not caught, or
    not caught by the visible tests; a right answer losing points; a run that was not
    normal) comes from grading that answer on its own. `alone` grades every entry on its own
    (the reference that grouping must reproduce). `stats` gets the number of graded submissions ("jobs")
    and the entries graded again alone among them ("graded again");
    `keep` grades only the entries it accepts (a quicker check).
    """
    entries = {aid: [e for e in load(course, aid) if keep is None or keep(e)] for aid in ids}
    visible = {aid: visible_test_cells(course, aid) for aid in ids}
    if alone:
        rights: dict[str, dict[str, list[Entry]]] = {aid: {} for aid in ids}
        wrongs: dict[str, list[list[Entry]]] = {aid: [[e] for e in entries[aid]] for aid in ids}
        notebooks: dict[str, grouping.Notebook] = {}
    else:
        rights = {aid: right_groups(entries[aid]) for aid in ids}
        analysed = {aid: wrong_groups(course, aid, entries[aid]) for aid in ids}
        wrongs = {aid: analysed[aid][0] for aid in ids}
        notebooks = {aid: analysed[aid][1] for aid in ids}
    # A submission's student: the entry's own id when alone, else a name for the group.
    together = {aid: {**rights[aid], **{(g[0].student_id if len(g) == 1 else f"wrong--together--{k}"): g
                                        for k, g in enumerate(wrongs[aid])}} for aid in ids}

    def hand_in(aid: str, release_nb: NotebookNode, solution_nb: NotebookNode) -> dict[str, NotebookNode]:
        made = {"perfect": perfect(release_nb, solution_nb), "blank": blank(release_nb, solution_nb)}
        for student, group in together[aid].items():
            made[student] = with_answers(release_nb, solution_nb, {e.grade_id: e.path.read_text() for e in group})
        return made

    records = _grade(course, ids, hand_in, workers, progress)
    jobs = sum(2 + len(together[aid]) for aid in ids)
    owner = {(aid, e.student_id): student for aid in ids for student, group in together[aid].items() for e in group}
    shares: dict[tuple[str, str], _Share | None] = {}
    for aid in ids:
        perfect_fair = _fair(records["perfect", aid])
        for student, group in together[aid].items():
            if len(group) > 1 and group[0].kind == "wrong":
                for member, share in _shares(records[student, aid], perfect_fair, group, notebooks[aid]).items():
                    shares[aid, member] = share

    def proven(aid: str, e: Entry) -> bool:
        student = owner[aid, e.student_id]
        if student == e.student_id:
            return True
        if e.kind == "right":
            return _fair(records[student, aid])
        share = shares[aid, e.student_id]
        return share is not None and share.score < records[student, aid].max_score and \
            bool(visible[aid] & set(share.messages))

    again = {aid: [e for e in entries[aid] if not proven(aid, e)] for aid in ids}
    if any(again.values()):  # grade each answer a shared submission could not prove on its own
        redo = [aid for aid in ids if again[aid]]
        records.update(_grade(course, redo, lambda aid, release_nb, solution_nb: {
            e.student_id: with_answers(release_nb, solution_nb, {e.grade_id: e.path.read_text()})
            for e in again[aid]}, workers, progress))
        jobs += sum(len(again[aid]) for aid in redo)
        for aid in redo:
            owner.update({(aid, e.student_id): e.student_id for e in again[aid]})
    if stats is not None:
        stats["jobs"] = jobs
        stats["graded again"] = [f"{e.grade_id}/{e.kind}_{e.name}" for aid in ids for e in again[aid]]

    def verdict(aid: str, student: str, exercise: str, entry: str, expected: Expected) -> Verdict:
        record = records[owner.get((aid, student), student), aid]
        detail = record.detail if record.status == "graded" else f"{record.status}: {record.detail}\n{record.log}"
        score, messages = record.score, failure_messages(record)
        share = shares.get((aid, student)) if owner.get((aid, student), student) != student else None
        if share is not None:  # a wrong answer proven in a shared submission: its own cells only
            score, messages, detail = share.score, share.messages, share.detail
        return Verdict(aid, exercise, entry, score, record.max_score, expected, detail,
                       messages, kernel_device(record), submission_flags(record),
                       seen=bool(visible[aid] & set(messages)))

    return [verdict_ for aid in ids for verdict_ in (
        verdict(aid, "perfect", "(all)", "perfect submission", "full"),
        verdict(aid, "blank", "(all)", "blank release", "zero"),
        *(verdict(aid, e.student_id, e.grade_id, f"{e.kind}_{e.name}", "full" if e.kind == "right" else "less")
          for e in entries[aid]))]


def submission_flags(record: GradeRecord) -> tuple[str, ...]:
    """The flags about the submission itself (a machine without isolation or cgroups flags every job alike)."""
    return tuple(flag for flag in record.flags if not flag.startswith(MACHINE))


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
