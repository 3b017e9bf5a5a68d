"""A class on a real JupyterHub, in a real browser: nbgrader's exchange from release to feedback.

JupyterHub (pinned in the test extra) runs on localhost with its configurable-http-proxy
(from the npm registry; `.ci/run` installs it into build/node/), logs people in with
JupyterHub's DummyAuthenticator and spawns each one's JupyterLab as that person's own Linux
account (LocalProcessSpawner), which the test creates and removes. Each server gets the
course's options (course_utils.cli.lab.course_server_options) as docs/jupyterhub.md sets them;
nbgrader's exchange is a shared folder, as on a real hub.

Playwright drives Chromium through a term: the instructor releases notebook 01 and the course's
two newest notebooks in the formgrader; two students log in and fetch in the Assignments panel:
one fetches, answers rightly and submits all three (pressing Validate in 01), the other answers
01 with a bug, presses Validate and submits; the instructor collects in the formgrader, runs
`course autograde` and `course feedback` as their own account and releases the feedback; a
student fetches the feedback and opens it. The formgrader's Autograde button, pressed once, grades
through the course's grader. Every step is a screenshot in the test's folder;
any browser console error, page error or HTTP 5xx fails the test.

It needs root (to create accounts and to let the hub start servers as them) on Linux.
"""
import csv
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from accounts import ACCOUNT_PATH, add_account, as_account, opened_for_everyone, remove_accounts, undo
from conftest import COURSE, ROOT
from course_utils import ipynb
from course_utils.cli.lab import course_server_options, disabled_plugins, write_app_settings
from course_utils.grader.engine.nbgrader_runner import generate, make_scratch_root
from course_utils.qa import figure1, submissions
from course_utils.qa.catalogue import load
from test_browser import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, WAIT_MS, _free_port, close_dialog, validate

pytestmark = pytest.mark.slow

AID = COURSE.ids()[1]  # 01: quick to validate and grade
# The newest notebooks reach the hub too: a term that gets to them meets what they add (their own
# data modules, longer graded runs) on a hub, not only in the course's own folder.
NEWEST = tuple(aid for aid in COURSE.ids()[-2:] if aid != AID)
TERM = (AID, *NEWEST)
INSTRUCTOR, STUDENTS = "ag-instructor", ("ag-ana", "ag-ben")
PASSWORD = "attention-graded-test"  # DummyAuthenticator's shared password: accounts are the test's own
PROXY = ROOT / "build" / "node" / "node_modules" / ".bin" / "configurable-http-proxy"
FEEDBACK_MATHJAX = "https://cdnjs.cloudflare.com/ajax/libs/mathjax/"  # nbconvert's default, in nbgrader's page
PROXY_INSTALL = "npm install --no-save --prefix build/node configurable-http-proxy@4.6.3"

HUB_CONFIG = '''
c = get_config()
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_port = {hub_port}
c.JupyterHub.db_url = "sqlite:///{work}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{work}/cookie_secret"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allowed_users = {users!r}
c.Spawner.cmd = [{singleuser!r}]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.http_timeout = 120
c.Spawner.start_timeout = 120
# Each account's nbgrader finds the course and the exchange here (docs/jupyterhub.md's
# /etc/jupyter/nbgrader_config.py, kept inside the test's folder).
c.Spawner.environment = {{"JUPYTER_CONFIG_PATH": "{work}/etc-jupyter", "PATH": {path!r}}}

def _course_options(spawner):
    spawner.args = {instructor_args!r} if spawner.user.name == {instructor!r} else {student_args!r}

c.Spawner.pre_spawn_hook = _course_options
'''


def _require_a_hub_machine():
    problems = []
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        problems.append("root on Linux (the test creates accounts; .ci/run runs as root)")
    if not CHROMIUM.exists():
        problems.append(f"{CHROMIUM} (.ci/run: apt-get install -y chromium)")
    if not PROXY.exists():
        problems.append(f"configurable-http-proxy at {PROXY} (.ci/run: {PROXY_INSTALL})")
    if problems:
        pytest.fail("the JupyterHub test needs " + "; ".join(problems))


@pytest.fixture(scope="module")
def hub():
    _require_a_hub_machine()
    work = Path(tempfile.mkdtemp(prefix="course-hub-"))
    os.chmod(work, 0o755)
    opened = opened_for_everyone([sys.executable, ROOT / ".venv", ROOT])
    homes = {name: add_account(name) for name in (INSTRUCTOR, *STUDENTS)}
    process = None
    try:
        exchange = work / "exchange"
        exchange.mkdir()
        os.chmod(exchange, 0o1777)
        (work / "etc-jupyter").mkdir()
        (work / "etc-jupyter" / "nbgrader_config.py").write_text(
            f'c = get_config()\nc.CourseDirectory.course_id = "{COURSE.course_id}"\nc.Exchange.root = "{exchange}"\n')
        settings = write_app_settings(work / "app-settings")
        student_settings = write_app_settings(work / "app-settings-students",
                                              disabled=disabled_plugins(instructor=False, exchange=True))
        for path in (work / "etc-jupyter", settings, student_settings):
            subprocess.run(["chmod", "-R", "a+rX", str(path)], check=True)

        # The instructor's home is the course root (the hub opens each server in the home).
        course = make_scratch_root(COURSE, homes[INSTRUCTOR], list(TERM))
        with course.config_file.open("a") as config:
            config.write(f'\nc.Exchange.root = "{exchange}"\n')
        for aid in TERM:
            generate(course, aid)
        subprocess.run(["chown", "-R", f"{INSTRUCTOR}:{INSTRUCTOR}", str(homes[INSTRUCTOR])], check=True)

        port = _free_port()
        (work / "jupyterhub_config.py").write_text(HUB_CONFIG.format(
            port=port, hub_port=_free_port(), proxy_port=_free_port(), work=work, proxy=str(PROXY),
            password=PASSWORD, users={INSTRUCTOR, *STUDENTS}, instructor=INSTRUCTOR,
            singleuser=str(Path(sys.executable).parent / "jupyterhub-singleuser"),
            path=ACCOUNT_PATH,
            instructor_args=course_server_options(settings, instructor=True),
            student_args=course_server_options(student_settings)))
        log = work / "hub.log"
        with open(log, "w") as out:
            process = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(work / "jupyterhub_config.py")],
                                       cwd=work, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        deadline = time.time() + 60
        while True:
            assert process.poll() is None, f"JupyterHub exited:\n{log.read_text()[-3000:]}"
            assert time.time() < deadline, f"JupyterHub did not answer within 60 s:\n{log.read_text()[-3000:]}"
            try:
                urllib.request.urlopen(base + "/hub/login", timeout=5)
                break
            except OSError:
                time.sleep(0.5)
        yield {"base": base, "homes": homes, "log": log, "course": course}
    finally:
        if process is not None:
            os.killpg(process.pid, signal.SIGTERM)  # the hub stops the servers it spawned
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        remove_accounts(INSTRUCTOR, *STUDENTS)
        undo(opened)
        shutil.rmtree(work, ignore_errors=True)


def _attachment_prefetch(message) -> bool:
    """JupyterLab's own noise when it shows the course's map: it sets a Markdown cell's HTML before
    it swaps `attachment:` URLs for the data, so Chromium first asks for the `attachment:` URL
    itself and logs that it cannot load it (jupyterlite/jupyterlite#792 shows the same). The image
    then renders: tests/cli/test_browser.py checks its size and alt text."""
    url = (message.location or {}).get("url", "")
    return "ERR_UNKNOWN_URL_SCHEME" in message.text and url == f"attachment:{figure1.FILE_NAME}"


class Person:
    """One person's browser session on the hub; records console errors and server errors."""

    def __init__(self, browser, hub, user, out, problems):
        self.user, self.hub, self.out, self.problems = user, hub, out, problems
        self.context = browser.new_context(viewport=VIEWPORT)
        self.page = self.context.new_page()
        self.page.set_default_timeout(60_000)
        self.page.on("console", lambda m: m.type in ("error", "assert") and not _attachment_prefetch(m)
                     and problems.append(f"{user} console: {m.text} ({(m.location or {}).get('url', '')})"))
        self.page.on("pageerror", lambda error: problems.append(f"{user} page error: {error.message}"))
        self.page.on("response", lambda r: r.status >= 500 and problems.append(f"{user} HTTP {r.status} {r.url}"))
        self.context.route("**/*", self._route)

    def _route(self, route):
        """Everything comes from the hub, except nbgrader's feedback page's MathJax (from a CDN, which
        this offline machine cannot reach): that one gets an empty script, so that the page shows its
        formulas as TeX, as it does for a student without internet access."""
        url = route.request.url
        if url.startswith((self.hub["base"] + "/", "data:", "blob:")):
            route.continue_()
        elif url.startswith(FEEDBACK_MATHJAX) and "/feedback/" in (route.request.frame.url or ""):
            route.fulfill(status=200, content_type="application/javascript", body="")
        else:
            self.problems.append(f"{self.user} asked for something outside the hub: {url}")
            route.abort()

    def url(self, path):
        return f"{self.hub['base']}/user/{self.user}/{path.lstrip('/')}"

    def shot(self, step):
        shots = sorted(self.out.glob("*.png"))
        self.page.screenshot(path=str(self.out / f"{len(shots) + 1:02d}-{self.user}-{step}.png"))

    def log_in(self):
        self.page.goto(self.hub["base"] + "/hub/login")
        self.page.fill("#username_input", self.user)
        self.page.fill("#password_input", PASSWORD)
        self.page.click("#login_submit")
        self.page.wait_for_url(f"**/user/{self.user}/lab**", timeout=WAIT_MS)
        self.page.wait_for_selector(".jp-LabShell", timeout=WAIT_MS)
        self.shot("logged-in")

    def assignments_panel(self):
        if "/lab" not in self.page.url:  # from JupyterLab itself: a reload would orphan a running kernel's comms
            self.page.goto(self.url("/lab"))
        self.page.wait_for_selector(".jp-LabShell")
        self.page.locator(".lm-MenuBar-itemLabel", has_text="Nbgrader").click()
        self.page.locator(".lm-Menu-itemLabel", has_text="Assignment List").click()
        self.page.locator("#released_assignments_list_loading").wait_for(state="hidden")

    def formgrader(self, path=""):
        self.page.goto(self.url(f"/formgrader/{path}"))
        self.page.locator("td.release, .panel").first.wait_for()

    def press_in_formgrader(self, column, step, aid=AID):
        """Press the formgrader's button in `column` for the assignment; its success dialog must show."""
        self.formgrader()
        self.page.locator(f"tr:has-text('{aid}') td.{column} a").click()
        self.page.locator("#success-modal").wait_for(timeout=WAIT_MS)
        self.shot(step)
        self.page.locator("#success-modal .modal-footer button").click()


def _answer_as(hub, student, notebook, aid=AID):
    """What the student typed, saved into the notebook the Assignments panel fetched into their home."""
    path = hub["homes"][student] / aid / f"{aid}.ipynb"
    assert path.is_file(), f"{student}'s fetch did not bring {path}"
    ipynb.write(notebook, path)
    shutil.chown(path, student, student)


def test_a_term_on_jupyterhub_from_release_to_feedback(hub, tmp_path):
    from playwright.sync_api import sync_playwright

    release = ipynb.read(hub["course"].release(AID))
    solution = ipynb.read(COURSE.solution(AID))
    mistake = next(e for e in load(COURSE, AID) if e.kind == "wrong")
    perfect = {aid: submissions.perfect(ipynb.read(hub["course"].release(aid)), ipynb.read(COURSE.solution(aid)))
               for aid in TERM}
    answers = {"ag-ana": perfect,   # the whole term, answered rightly
               "ag-ben": {AID: submissions.with_answers(release, solution,
                                                        {mistake.grade_id: mistake.path.read_text()})}}
    problems = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        try:
            instructor = Person(browser, hub, INSTRUCTOR, tmp_path, problems)
            instructor.log_in()
            for aid in TERM:
                instructor.press_in_formgrader("release", f"released-{aid}", aid)

            people = {}
            for student in STUDENTS:
                person = people[student] = Person(browser, hub, student, tmp_path, problems)
                person.log_in()
                for aid, notebook in answers[student].items():
                    person.assignments_panel()
                    person.page.locator(f"#released_assignments_list .list_item:has-text('{aid}') button",
                                        has_text="Fetch").click()
                    person.page.locator(f"#fetched_assignments_list .list_item:has-text('{aid}') button",
                                        has_text="Submit").wait_for()
                    person.shot(f"fetched-{aid}")
                    _answer_as(hub, student, notebook, aid)
                    if aid == AID:  # Validate in the browser once each (the newest notebooks are graded below)
                        person.page.goto(person.url(f"/lab/tree/{aid}/{aid}.ipynb"))
                        person.page.wait_for_selector(".jp-NotebookPanel .validate-button", state="visible")
                        dialog = validate(person.page)
                        text = dialog.inner_text()
                        person.shot(f"validated-{aid}")
                        if student == "ag-ana":
                            assert "Success" in text, f"{aid}: {text}"
                        else:
                            assert mistake.grade_id in text, f"Validate should name {mistake.grade_id}:\n{text}"
                        close_dialog(person.page)

                    person.assignments_panel()
                    person.page.locator(f"#fetched_assignments_list .list_item:has-text('{aid}') button",
                                        has_text="Submit").click()
                    person.page.locator(f"#submitted_assignments_list .list_item:has-text('{aid}')").first \
                        .wait_for(timeout=WAIT_MS)
                    person.shot(f"submitted-{aid}")

            for aid in TERM:
                instructor.press_in_formgrader("collect", f"collected-{aid}", aid)
            home = hub["homes"][INSTRUCTOR]
            for command in (["autograde", *TERM], ["feedback", AID]):
                done = as_account(INSTRUCTOR, sys.executable, "-m", "course_utils", *command, cwd=home)
                assert done.returncode == 0, f"course {' '.join(command)}:\n{done.stdout}\n{done.stderr}"
            with (home / "reports" / "grades.csv").open() as handle:
                rows = list(csv.DictReader(handle))
            assert rows and not any("not isolated" in row["flags"] for row in rows), \
                f"the instructor's own account grades in the sandbox: {[row['flags'] for row in rows]}"
            graded = {row["assignment"]: row for row in rows if row["student_id"] == "ag-ana"}
            assert all(graded[aid]["status"] == "graded" and float(graded[aid]["score"]) == float(graded[aid]["max_score"])
                       for aid in TERM), f"ag-ana's right answers to the whole term: {graded}"
            instructor.formgrader(f"manage_submissions/{AID}")
            instructor.page.locator("td", has_text="ag-ben").first.wait_for()
            page_text = instructor.page.inner_text("body")
            instructor.shot("graded")
            assert "needs autograding" not in page_text.lower(), "the formgrader must see the grades"
            # Its Autograde button grades again, through the course's grader (course_utils.grader.term.formgrader).
            instructor.page.locator("tr:has-text('ag-ben') td.autograde a").click()
            instructor.page.locator("#success-modal").wait_for(timeout=WAIT_MS)
            assert "course autograde" in instructor.page.inner_text("#success-modal"), "graded by nbgrader alone"
            instructor.shot("autograde-button")
            instructor.page.locator("#success-modal .modal-footer button").click()
            instructor.press_in_formgrader("release-feedback", "feedback-released")

            ben = people["ag-ben"]  # still logged in, the notebook still open
            ben.assignments_panel()
            ben.page.locator("#submitted_assignments_list button", has_text="Fetch Feedback").click()
            home = hub["homes"]["ag-ben"]
            deadline = time.time() + 60
            while not list((home / AID / "feedback").glob(f"*/{AID}.html")):
                assert time.time() < deadline, "Fetch Feedback brought no feedback page"
                time.sleep(0.5)
            page = next((home / AID / "feedback").glob(f"*/{AID}.html"))
            ben.page.goto(ben.url(f"/files/{AID}/feedback/{page.parent.name}/{AID}.html"))
            ben.page.get_by_text("Score:").first.wait_for()
            ben.shot("feedback")
            assert "BEGIN HIDDEN TESTS" not in ben.page.content()
        finally:
            browser.close()
    print(f"screenshots: {tmp_path}")
    assert not problems, "browser console errors or server errors:\n" + "\n".join(problems)
