"""The formgrader's Autograde button, graded the course's way: a Jupyter server extension.

For instructors who grade in nbgrader's formgrader. Its Autograde button would run
`nbgrader autograde` in the server's own process: a student's code with the instructor's
rights and files, and none of the course's isolation, limits or source screen. With this
extension on (`course lab --instructor` switches it on; on a JupyterHub,
`jupyter server extension enable --sys-prefix course_utils.grader.term.formgrader`), the button
grades that one submission through `pipeline.autograde` instead, exactly as `course
autograde --student ID ID_OF_ASSIGNMENT --force` does, and shows the result in the
formgrader's dialog. The other buttons are nbgrader's own and safe as they are.
"""
from __future__ import annotations

import json
import traceback
from pathlib import Path

from course_utils.course import Course


def grade_one(root: str | Path, assignment_id: str, student_id: str, db_url: str | None = None) -> dict:
    """The formgrader's answer for one submission: {"success", "log"[, "error"]}, as nbgrader's api gives it.

    `db_url` is the gradebook the formgrader shows. While another run grades the course, the
    button does not wait (a request held for the length of a class's run would look hung): the
    dialog names that run and asks to try again.
    """
    from course_utils.grader.engine.lock import CourseBusy
    from course_utils.grader.engine.pipeline import autograde
    from course_utils.grader.engine.records import records_table

    try:
        records = autograde(Course(Path(root)), [assignment_id], students=[student_id], force=True, progress=False,
                            db_url=db_url, wait=False, command="the formgrader's Autograde button")
    except CourseBusy as busy:
        return {"success": False, "error": str(busy), "log": ""}
    except Exception:  # noqa: BLE001  the dialog shows it; the server goes on
        return {"success": False, "error": traceback.format_exc(), "log": ""}
    log = "Graded by the course's isolated grader (course autograde):\n" + records_table(records)
    failed = [r for r in records if r.status == "error"]
    if failed:
        return {"success": False, "error": "; ".join(r.detail for r in failed), "log": log}
    return {"success": True, "log": log}


def _jupyter_server_extension_points() -> list[dict]:
    return [{"module": "course_utils.grader.term.formgrader"}]


def _load_jupyter_server_extension(serverapp) -> None:
    """Answer the formgrader's autograde requests with grade_one, ahead of nbgrader's own handler."""
    from jupyter_server.utils import url_path_join
    from nbgrader.server_extensions.formgrader.apihandlers import AutogradeHandler
    from nbgrader.server_extensions.formgrader.base import check_notebook_dir, check_xsrf
    from tornado import web
    from tornado.ioloop import IOLoop
    from tornado.routing import PathMatches, Rule

    class CourseAutogradeHandler(AutogradeHandler):
        @web.authenticated
        @check_xsrf
        @check_notebook_dir
        async def post(self, assignment_id: str, student_id: str) -> None:
            coursedir = self.api.coursedir
            # Grading takes seconds to minutes: off the event loop, so the server keeps answering.
            result = await IOLoop.current().run_in_executor(None, grade_one, coursedir.root, assignment_id, student_id,
                                                            coursedir.db_url)
            self.write(json.dumps(result))

    webapp = serverapp.web_app
    pattern = url_path_join(webapp.settings["base_url"], r"/formgrader/api/submission/([^/]+)/([^/]+)/autograde")
    # Tornado tries rules in order, and nbgrader's formgrader may load first: go to the front.
    webapp.default_router.rules.insert(0, Rule(PathMatches(pattern), CourseAutogradeHandler))
    serverapp.log.info("Attention, Graded: the formgrader's Autograde button grades through course autograde")
