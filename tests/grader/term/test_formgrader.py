"""The formgrader's Autograde button, answered by the course's grader (course_utils.grader.term.formgrader)."""
import logging

import tornado.web
from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

from course_utils.grader.term import formgrader


class _Server:
    """What the extension reads of Jupyter's ServerApp."""

    def __init__(self, base_url):
        self.web_app = tornado.web.Application([], base_url=base_url)
        self.log = logging.getLogger("test-formgrader")


def _handler_for(app, path):
    request = HTTPServerRequest(start_line=RequestStartLine("POST", path, "HTTP/1.1"),
                                headers=HTTPHeaders({"Host": "127.0.0.1"}))
    delegate = app.default_router.find_handler(request)
    return delegate.handler_class


def test_the_autograde_button_reaches_the_courses_handler_first():
    from nbgrader.server_extensions.formgrader.apihandlers import AutogradeHandler, default_handlers

    server = _Server("/user/instructor/")
    # nbgrader's formgrader may load first: its handler is there already.
    nbgraders = [("/user/instructor" + pattern, handler) for pattern, handler in default_handlers]
    server.web_app.add_handlers(".*$", nbgraders)
    formgrader._load_jupyter_server_extension(server)
    found = _handler_for(server.web_app, "/user/instructor/formgrader/api/submission/01_a/ana/autograde")
    assert issubclass(found, AutogradeHandler) and found is not AutogradeHandler
    assert found.__module__ == formgrader.__name__
    other = _handler_for(server.web_app, "/user/instructor/formgrader/api/submission/01_a/ana")
    assert other is None or other.__module__ != formgrader.__name__, "other formgrader requests stay nbgrader's"


def test_a_grading_failure_is_reported_in_the_dialog_not_raised(tmp_path):
    result = formgrader.grade_one(tmp_path, "01_a", "ana")  # no course there
    assert result["success"] is False and "nbgrader_config.py" in result["error"]
