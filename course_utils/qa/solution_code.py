"""Load the reference implementations from the solution notebooks, for benchmarks.

course_utils holds no exercise answer; benchmarks that time the course's own code (an
instructor's tool, run from the repository) execute the answer and provided cells of a
solution notebook into a fresh namespace instead.
"""
from __future__ import annotations

import math

import torch

from course_utils.course import Course
from course_utils.ipynb import nbgrader_meta, read
from course_utils.qa.submissions import strip_solution_markers


def solution_namespace(course: Course, aid: str) -> dict:
    """Names defined by `aid`'s provided and answer cells (executed in notebook order)."""
    namespace = {"torch": torch, "nn": torch.nn, "F": torch.nn.functional, "math": math,
                 "__name__": f"solution_{aid}"}
    for cell in read(course.solution(aid)).cells:
        meta = nbgrader_meta(cell)
        provided = "provided_from" in cell.metadata.get("course", {})
        if cell.cell_type == "code" and (meta.get("solution") or provided):
            source = strip_solution_markers(cell.source)
            exec(compile(source, f"<{aid}:{meta.get('grade_id')}>", "exec"), namespace)  # noqa: S102
    return namespace
