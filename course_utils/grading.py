"""`course autograde`: grade submissions with nbgrader and export the scores.

This is the seam the class-scale grader builds on: `grade_assignment` grades a set of
students' submissions of one assignment inside one course root, and `collect` turns the
gradebook into one `GradeRow` per (student, assignment), whatever happened.
"""
import csv
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path

from course_utils.course import Course, CourseError
from course_utils.gradebook import max_score, submission_scores
from course_utils.nbgrader_runner import generate, run_nbgrader

CSV_COLUMNS = ["student_id", "assignment", "score", "max_score", "status", "detail"]


@dataclass
class GradeRow:
    student_id: str
    assignment: str
    score: float
    max_score: float
    status: str  # graded | error | missing
    detail: str = ""
    cells: dict = field(default_factory=dict, repr=False)  # test cell -> (score, max)


def submission_path(course: Course, student, aid):
    return course.root / "submitted" / student / aid / f"{aid}.ipynb"


def autograded_path(course: Course, student, aid):
    return course.root / "autograded" / student / aid / f"{aid}.ipynb"


def log_path(course: Course, aid):
    return course.root / "build" / "logs" / f"autograde-{aid}.log"


def grade_assignment(course: Course, aid):
    """Record `aid` in the gradebook and autograde every submission of it under submitted/.

    The student version is generated into a temporary folder, so grading never rewrites
    the course's notebooks/.
    """
    with tempfile.TemporaryDirectory(prefix="course-release-") as tmp:
        generate(course, aid, release_dir=tmp)
    result = run_nbgrader(course.root, "autograde", aid, "--create", "--force")
    log = log_path(course, aid)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(result.log)
    return result


def collect(course: Course, aid, students):
    """One row per student for `aid`: graded, missing (nothing submitted) or error."""
    rows = []
    top = max_score(course, aid)
    for student in students:
        if not submission_path(course, student, aid).is_file():
            rows.append(GradeRow(student, aid, 0.0, top, "missing",
                                 f"no submitted/{student}/{aid}/{aid}.ipynb"))
            continue
        scores = submission_scores(course, aid, student)
        if scores is None or not autograded_path(course, student, aid).is_file():
            rows.append(GradeRow(student, aid, 0.0, top, "error",
                                 f"nbgrader could not grade it; see {log_path(course, aid).relative_to(course.root)}"))
            continue
        score, most, cells = scores
        failed = sorted(name for name, (got, out_of) in cells.items() if got < out_of)
        detail = "failed: " + ", ".join(failed) if failed else "all tests passed"
        rows.append(GradeRow(student, aid, score, most, "graded", detail, cells))
    return rows


def students_with_submissions(course: Course):
    folder = course.root / "submitted"
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def autograde(course: Course, ids=None, report=None):
    """Grade every submission of the given assignments; write reports/grades.csv."""
    students = students_with_submissions(course)
    if not students:
        raise CourseError(f"Nothing to grade: put submissions at {course.root / 'submitted'}"
                          "/<student_id>/<assignment>/<assignment>.ipynb (nbgrader's layout).")
    if not ids:
        ids = [aid for aid in course.ids()
               if any(submission_path(course, s, aid).is_file() for s in students)]
    rows = []
    for aid in ids:
        grade_assignment(course, aid)
        rows.extend(collect(course, aid, students))
    write_csv(rows, report or course.root / "reports" / "grades.csv")
    return rows


def write_csv(rows, path):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow(asdict(row))
    return path
