"""`course feedback`: per-student HTML feedback with scores and the visible tests' messages.

nbgrader's generate_feedback does the work; the course config strips hidden tests from
it, and graded kernels run with minimal tracebacks, so no hidden test shows.
"""
from __future__ import annotations

from pathlib import Path

from course_utils.course import Course, CourseError
from course_utils.grader.nbgrader_runner import run_nbgrader


def feedback(course: Course, ids: list[str]) -> list[Path]:
    """Write the feedback page of every graded submission of `ids`; return their paths."""
    made = []
    for aid in ids:
        graded = [student for student in course.students() if course.autograded(student, aid).is_file()]
        if not graded:
            continue
        result = run_nbgrader(course.root, "generate_feedback", aid, "--force")
        if not result.ok:
            raise CourseError(f"nbgrader could not write feedback for {aid}:\n" + result.log[-2000:])
        made += [course.feedback(student, aid) for student in graded]
    if not made:
        raise CourseError("No graded submissions to give feedback on: run `course autograde` first.")
    return made
