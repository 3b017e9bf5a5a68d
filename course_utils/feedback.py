"""`course feedback`: per-student HTML feedback with scores and the visible tests' messages.

nbgrader's generate_feedback does the work; the course config strips hidden tests from
it, and graded kernels run with minimal tracebacks, so no hidden test shows.
"""
from course_utils.course import Course, CourseError
from course_utils.nbgrader_runner import run_nbgrader


def feedback(course: Course, ids):
    """Write feedback/<student>/<id>/<id>.html for every graded submission of `ids`."""
    made = []
    for aid in ids:
        graded = sorted(p.parent.parent.name for p in (course.root / "autograded").glob(f"*/{aid}/{aid}.ipynb"))
        if not graded:
            continue
        result = run_nbgrader(course.root, "generate_feedback", aid, "--force")
        if not result.ok:
            raise CourseError(f"nbgrader could not write feedback for {aid}:\n" + result.log[-2000:])
        made += [course.root / "feedback" / student / aid / f"{aid}.html" for student in graded]
    if not made:
        raise CourseError("No graded submissions to give feedback on: run `course autograde` first.")
    return made
