"""Made-up classes in a scratch course root: for the demo, the catalogue, the benchmark and tests.

`write_class` builds one, which `course_utils.grader.engine.pipeline.autograde` then grades as it
grades a real class; `failure_messages` reads what each failing test said.
"""
from __future__ import annotations

import datetime
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from course_utils import ipynb
from course_utils.course import Course
from course_utils.grader.engine.nbgrader_runner import generate, make_scratch_root
from course_utils.grader.engine.records import GradeRecord
from course_utils.notebook.device import ANNOUNCEMENT

if TYPE_CHECKING:
    from nbformat import NotebookNode

# What a class hands in for one assignment: {student: notebook, raw bytes (a broken file,
# as a student's disk may leave it) or None (nothing)}, given (aid, release, solution).
HandIn = Callable[[str, "NotebookNode", "NotebookNode"], "dict[str, NotebookNode | bytes | None]"]


def write_class(course: Course, ids: list[str], folder: Path, hand_in: HandIn, fresh: bool = False,
                submitted_at: datetime.datetime | None = None) -> Course:
    """A scratch course root at `folder` holding a made-up class's submissions; return it.

    For each assignment of `ids` the release is generated with nbgrader, then
    `hand_in(aid, release_nb, solution_nb)` says what each student hands in.
    `fresh` deletes `folder` first. `submitted_at` (aware) is written into each submission's
    timestamp.txt as nbgrader's exchange writes it, so that grades carry a submission time.
    """
    folder = Path(folder)
    if fresh and folder.exists():
        shutil.rmtree(folder)
    scratch = make_scratch_root(course, folder, ids)
    for aid in ids:
        generate(scratch, aid)
        release_nb = ipynb.read(scratch.release(aid))
        solution_nb = ipynb.read(course.solution(aid))
        for student, handed_in in hand_in(aid, release_nb, solution_nb).items():
            path = scratch.submitted(student, aid) / f"{aid}.ipynb"
            if isinstance(handed_in, bytes):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(handed_in)
            elif handed_in is not None:
                ipynb.write(handed_in, path)
            if submitted_at is not None and path.exists():
                (path.parent / "timestamp.txt").write_text(submitted_at.strftime(_exchange_timestamp_format()))
    return scratch


def _exchange_timestamp_format() -> str:
    from nbgrader.exchange.abc.exchange import Exchange

    return Exchange.class_traits()["timestamp_format"].default()


Messages = dict[str, tuple[str, str, str]]  # failing test cell -> (error name, message, traceback)


def failure_messages(record: GradeRecord) -> Messages:
    """What each failing test cell of a graded notebook said: {grade_id: (error name, value, traceback)}."""
    if not record.autograded:
        return {}
    found = {}
    for cell in ipynb.reads(record.autograded).cells:
        meta = ipynb.nbgrader_meta(cell)
        if not meta.get("grade_id") or not meta.get("grade"):
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                found[meta["grade_id"]] = (output["ename"], output["evalue"],
                                           ipynb.strip_ansi("\n".join(output.get("traceback", []))))
    return found


def kernel_device(record: GradeRecord) -> str:
    """The device the graded kernel ran on, as its setup cell announced it ("" if it did not say)."""
    if not record.autograded:
        return ""
    for cell in ipynb.reads(record.autograded).cells:
        for output in cell.get("outputs", []):
            for line in output.get("text", "").splitlines():
                if line.startswith(ANNOUNCEMENT):
                    return line[len(ANNOUNCEMENT):].strip()
    return ""
