"""Self-study on the published copy, in a real browser: a student's JupyterLab shows nbgrader's
student tools only.

The servers and the browser are tests/cli/test_browser.py's (`course lab`'s command line on a
`course publish` copy for the student, on the course for the instructor). On a student's
machine no nbgrader exchange is configured, so `course lab` turns off nbgrader's formgrader and
Create Assignment, and its Assignments tab and Nbgrader menu, whose only content would be
"Error fetching courses!" and exchange errors; the Validate button stays. The instructor's
server, with every tool, is the control: the same selectors find the tools there.
"""
import urllib.error
import urllib.request

import nbgrader
import pytest
from test_browser import NB01, browser, instructor_lab, open_notebook, student_lab  # noqa: F401  (fixtures)

from course_utils.cli import lab
from course_utils.course import PUBLISHED_MARKER

pytestmark = pytest.mark.slow

# nbgrader 0.9.6's Create Assignment panel (its id, spelled as nbgrader spells it) and the title of its menu.
CREATE_ASSIGNMENT_PANEL = "#nbgrader-create_assignemnt"
EXCHANGE_ERRORS = ("Error fetching", "ExchangeError", "Unwritable directory", "exchange directory")


def _status(jupyterlab, path):
    try:
        return urllib.request.urlopen(jupyterlab.url(path), timeout=30).status
    except urllib.error.HTTPError as error:
        return error.code


def _nbgrader_tools(b):
    """What nbgrader's lab extension shows around notebook 01: {tool: shown?}."""
    page = open_notebook(b, f"notebooks/{NB01}/{NB01}.ipynb")
    menu_titles = [t.strip() for t in page.locator("#jp-menu-panel .lm-MenuBar-itemLabel").all_text_contents()]
    shown = {
        "validate button": page.locator(".jp-NotebookPanel .validate-button").is_visible(),
        "Nbgrader menu": "Nbgrader" in menu_titles,
        "Create Assignment panel": page.locator(CREATE_ASSIGNMENT_PANEL).count() > 0,
        "Create Assignment tab": page.locator('.lm-TabBar-tab[title*="Create Assignment"]').count() > 0,
    }
    if shown["Nbgrader menu"]:
        page.locator("#jp-menu-panel .lm-MenuBar-itemLabel", has_text="Nbgrader").click()
        items = page.locator(".lm-Menu-itemLabel").all_text_contents()
        shown.update({"Formgrader menu item": "Formgrader" in items,
                      "Assignment List menu item": "Assignment List" in items})
        page.keyboard.press("Escape")
    else:
        shown.update({"Formgrader menu item": False, "Assignment List menu item": False})
    b.shot("nbgrader-tools")
    return page, shown


def test_students_copy_shows_no_instructor_tool_and_no_exchange_error(browser):  # noqa: F811
    assert (browser.lab.root / PUBLISHED_MARKER).is_file(), "the student's server serves a `course publish` copy"
    assert not lab.exchange_configured(browser.lab.root), "a student's machine has no nbgrader exchange"
    page, shown = _nbgrader_tools(browser)
    assert shown == {"validate button": True, "Nbgrader menu": False, "Create Assignment panel": False,
                     "Create Assignment tab": False, "Formgrader menu item": False,
                     "Assignment List menu item": False}, shown
    text = page.locator("body").inner_text()
    assert not [words for words in EXCHANGE_ERRORS if words in text], "exchange errors on the page"
    # The server side: no formgrader, no exchange handlers; the Validate button's version check answers.
    assert _status(browser.lab, "/formgrader") == 404
    assert _status(browser.lab, "/courses") == 404 and _status(browser.lab, "/assignments") == 404
    assert _status(browser.lab, f"/nbgrader_version?version={nbgrader.__version__}") == 200


@pytest.mark.parametrize("browser", ["instructor_lab"], indirect=True)
def test_instructor_keeps_every_nbgrader_tool(browser):  # noqa: F811
    _, shown = _nbgrader_tools(browser)
    assert all(shown.values()), shown
    assert _status(browser.lab, "/formgrader") == 200
