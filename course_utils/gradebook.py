"""Reading scores back from nbgrader's gradebook."""
from traitlets.config.loader import PyFileConfigLoader

from nbgrader.api import Gradebook, MissingEntry

from course_utils.course import Course


def course_settings(course: Course):
    """(db_url, course_id) as the course root's nbgrader_config.py sets them."""
    config = PyFileConfigLoader(course.config_file.name, path=str(course.root)).load_config()
    coursedir = config.get("CourseDirectory", {})
    db_url = coursedir.get("db_url") or "sqlite:///" + str(course.root / "gradebook.db")
    return db_url, coursedir.get("course_id") or ""


def max_score(course: Course, aid, db_url=None):
    default_db, course_id = course_settings(course)
    db_url = db_url or default_db
    with Gradebook(db_url, course_id) as gb:
        return float(gb.find_assignment(aid).max_score)


def submission_scores(course: Course, aid, student):
    """(score, max_score, {test cell grade_id: (score, max_score)}), or None if not graded."""
    db_url, course_id = course_settings(course)
    with Gradebook(db_url, course_id) as gb:
        try:
            submission = gb.find_submission(aid, student)
        except MissingEntry:
            return None
        cells = {}
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                cells[grade.name] = (float(grade.score), float(grade.max_score))
        return float(submission.score), float(submission.max_score), cells
