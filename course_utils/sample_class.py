"""Made-up classes in a scratch course root: for the demo, the catalogue, the benchmark and tests.

`write_class` builds one; `grade_class` builds and grades a class of one assignment. A
submission is described by a function of (release notebook, solution notebook) that returns
the notebook the "student" hands in; see `submissions` for the usual ones.
"""
import shutil

from course_utils import submissions
from course_utils.course import Course
from course_utils.grading import autograded_path, collect, grade_assignment, submission_path
from course_utils.nbgrader_runner import generate, make_scratch_root


def blank(release_nb, solution_nb):
    return release_nb


def perfect(release_nb, solution_nb):
    return submissions.perfect(release_nb, solution_nb)


def answers(replacements):
    """A submission that is perfect except for the given answer cells {grade_id: source}."""
    def make(release_nb, solution_nb):
        return submissions.with_answers(release_nb, solution_nb, replacements)
    return make


def write_class(course: Course, ids, folder, hand_in, fresh=False):
    """A scratch course root at `folder` holding a made-up class's submissions; return it.

    For each assignment of `ids` the release is generated with nbgrader, then
    `hand_in(aid, release_nb, solution_nb)` returns {student_id: what they hand in}: a
    notebook, raw bytes (a broken file, as a student's disk may leave it) or None (nothing).
    `fresh` deletes `folder` first.
    """
    if fresh and folder.exists():
        shutil.rmtree(folder)
    scratch = make_scratch_root(course, folder, ids)
    for aid in ids:
        generate(scratch, aid)
        release_nb = submissions.read(scratch.release(aid))
        solution_nb = submissions.read(course.solution(aid))
        for student, handed_in in hand_in(aid, release_nb, solution_nb).items():
            path = submission_path(scratch, student, aid)
            if isinstance(handed_in, bytes):
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(handed_in)
            elif handed_in is not None:
                submissions.write(handed_in, path)
    return scratch


def grade_class(course: Course, aid, class_, folder):
    """Grade {student_id: make_submission} for `aid` in a scratch root at `folder`.

    Returns {student_id: GradeRow}. Every student of one assignment is graded in one
    nbgrader run, as an instructor would grade a class.
    """
    scratch = write_class(course, [aid], folder,
                          lambda _, release_nb, solution_nb: {student: make(release_nb, solution_nb)
                                                              for student, make in class_.items()})
    result = grade_assignment(scratch, aid)
    rows = {row.student_id: row for row in collect(scratch, aid, list(class_))}
    for row in rows.values():
        if row.status == "error":
            row.detail += "\n" + result.log[-3000:]
        else:
            row.messages = failure_messages(autograded_path(scratch, row.student_id, aid))
    return rows


def failure_messages(path):
    """{test cell grade_id: (error name, error value, traceback text)} of a graded notebook."""
    found = {}
    for cell in submissions.read(path).cells:
        grade_id = submissions.nbgrader_meta(cell).get("grade_id")
        if not grade_id or not submissions.nbgrader_meta(cell).get("grade"):
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                found[grade_id] = (output["ename"], output["evalue"],
                                   submissions.strip_ansi("\n".join(output.get("traceback", []))))
    return found
