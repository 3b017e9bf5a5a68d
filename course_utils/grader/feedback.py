"""`course feedback`: per-student HTML feedback with scores and the visible tests' messages.

nbgrader's generate_feedback does the work; the course config strips hidden tests from
it, and graded kernels run with minimal tracebacks, so no hidden test shows.
"""
from __future__ import annotations

from pathlib import Path

from course_utils.course import Course, CourseError
from course_utils.grader.nbgrader_runner import run_nbgrader


def feedback(course: Course, ids: list[str], students: list[str] | None = None) -> list[Path]:
    """Write the feedback page of every graded submission of `ids` (of `students`, default all); return their paths.

    nbgrader copies the submission's timestamp.txt and submission_secret.txt along, which
    `nbgrader release_feedback` needs to file each page where that student's `fetch_feedback` looks.
    """
    made = []
    for aid in ids:
        graded = [student for student in course.students() if course.autograded(student, aid).is_file()
                  and (not students or student in students)]
        if not graded:
            continue
        runs = [[]] if not students else [[f"--student={student}"] for student in graded]
        for extra in runs:
            result = run_nbgrader(course.root, "generate_feedback", aid, "--force", *extra)
            if not result.ok:
                raise CourseError(f"nbgrader could not write feedback for {aid}:\n" + result.log[-2000:])
        made += [course.feedback(student, aid) for student in graded]
    if not made:
        who = f" of {', '.join(students)}" if students else ""
        raise CourseError(f"No graded submissions{who} to give feedback on: run `course autograde` first.")
    return made
