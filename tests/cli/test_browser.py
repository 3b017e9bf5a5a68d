"""The student and instructor experience in a real browser: JupyterLab 4 driven by Playwright.

A real `jupyter lab` (the command line of `course lab`, from course_utils.cli.lab) serves a
temporary copy of the course on a free localhost port; Debian's Chromium (/usr/bin/chromium,
installed by .ci/run; never `playwright install`) opens it. Each test saves screenshots of
its steps in its tmp_path (printed at the end of the test). The README's screenshot,
docs/images/jupyterlab-notebook.png, is the notebook-02 step: refresh it with
`COURSE_UPDATE_SCREENSHOT=1 .venv/bin/python -m pytest tests/cli/test_browser.py -k heatmap`
(a plain run leaves the repository untouched).

Every test fails on
- a browser console error or uncaught page error whose source is the course's own code:
  anything that mentions course_utils, the course's notebooks or files served from the
  course (/files/, /api/contents/, .ipynb), or a notebook output (data: URLs of figures,
  rendered output areas). Other console errors come from JupyterLab and its extensions
  themselves (their own bugs, not the course's); they are written to console.txt in the
  test's folder and do not fail it. With JupyterLab 4.6.6 and nbgrader 0.9.6 a passing run
  logs none at all; the ones to expect are "Failed to load resource: net::ERR_FAILED" for a
  request aborted as external (which fails the test anyway, below) and websocket messages
  if a page is closed while its kernel is busy (the fixture leaves the page first);
- a server error (HTTP 5xx) answering the page: a broken handler, never noise;
- a request from the page to anywhere but the local server (the course must work offline:
  no news feed, no update check, no CDN). Such requests are aborted and reported.
"""
import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import nbformat
import nbgrader
import pytest

from conftest import COURSE, ROOT
from course_utils.cli import lab
from course_utils.grader.term.publish import publish
from course_utils.qa import figure1

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
README_SCREENSHOT = ROOT / "docs" / "images" / "jupyterlab-notebook.png"
TOKEN = "course-browser-test"
NB01 = "01_queries_keys_values"
NB02 = "02_scaled_dot_product_attention"
NB03 = "03_multi_head_attention"
CATALOGUE = ROOT / "tests" / "bug_catalogue"
VIEWPORT = {"width": 1400, "height": 900}
WAIT_MS = 120_000  # the longest wait: Validate runs the whole notebook in a fresh kernel

# What marks a console error as the course's own (see the module docstring).
COURSE_MARKERS = re.compile(r"course_utils|/notebooks/|/solutions/|/files/|/api/contents/|\.ipynb|"
                            r"data:image|jp-OutputArea|rendermime|nbgrader_config", re.I)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _answer(aid, grade_id):
    """The reference answer of one answer cell, as a student would type it (no nbgrader markers)."""
    nb = nbformat.read(str(ROOT / "solutions" / aid / f"{aid}.ipynb"), as_version=4)
    cell = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    return "\n".join(line for line in cell.source.splitlines()
                     if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))


def _answer_cells(aid):
    """(index, grade_id) of every code answer cell of the release notebook `aid`."""
    nb = nbformat.read(str(ROOT / "notebooks" / aid / f"{aid}.ipynb"), as_version=4)
    return [(i, c.metadata["nbgrader"]["grade_id"]) for i, c in enumerate(nb.cells)
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")]


class Lab:
    def __init__(self, root, port, process, log):
        self.root, self.port, self.process, self.log = root, port, process, log
        self.base = f"http://127.0.0.1:{port}"

    def url(self, path, reset=False):
        # `reset`: start from an empty workspace (no tab of an earlier test restored).
        path = path.lstrip("/")
        return f"{self.base}/{path}{'&' if '?' in path else '?'}{'reset&' if reset else ''}token={TOKEN}"

    def log_tail(self):
        return self.log.read_text(errors="replace")[-4000:]


def _course_copy(root):
    """The instructor's course (for the formgrader): notebooks, solutions and the config."""
    root.mkdir()
    for folder in ("notebooks", "solutions"):
        shutil.copytree(ROOT / folder, root / folder,
                        ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    shutil.copy(ROOT / "nbgrader_config.py", root)


def _students_copy(root):
    """What students get: `course publish` of the notebooks up to 03 (no solutions, no hidden tests)."""
    publish(COURSE, root, upto=NB03)


@pytest.fixture(scope="module")
def student_lab(tmp_path_factory):
    """`jupyter lab` (as `course lab` starts it) serving a published students' copy."""
    yield from _serve(tmp_path_factory.mktemp("student-lab"), _students_copy)


@pytest.fixture(scope="module")
def instructor_lab(tmp_path_factory):
    """`jupyter lab` serving a copy of the instructor's course, solutions included."""
    yield from _serve(tmp_path_factory.mktemp("instructor-lab"), _course_copy, instructor=True)


def _serve(work, make_root, instructor=False):
    """`jupyter lab` (as `course lab` starts it, `--instructor` or not) on a free port, serving the
    folder `make_root` fills."""
    root = work / "course"
    make_root(root)
    # As `course lab` does: a student's page without nbgrader's instructor tools, and without
    # its Assignments tab when no exchange is configured (none is on a test machine).
    exchange = lab.exchange_configured(root)
    settings = lab.write_app_settings(work / "app-settings", extra=lab.RENDER_ALL_CELLS,
                                      disabled=lab.disabled_plugins(instructor, exchange))
    port = _free_port()
    argv = lab.lab_command(root, port, app_settings_dir=settings, token=TOKEN, open_browser=False,
                           instructor=instructor, exchange=exchange)
    # A private Jupyter config, data and runtime dir: the user's own settings, workspaces and
    # kernels play no part. The course's kernel is this environment's python3.
    env = lab.lab_environment(dict(os.environ, JUPYTER_CONFIG_DIR=str(work / "jupyter-config"),
               JUPYTER_DATA_DIR=str(work / "jupyter-data"), JUPYTER_RUNTIME_DIR=str(work / "jupyter-runtime")))
    env.pop("COURSE_FIGURE_AUDIT", None)
    log = work / "server.log"
    with open(log, "w") as out:
        process = subprocess.Popen(argv, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    server = Lab(root, port, process, log)
    try:
        deadline = time.time() + 90
        while True:
            assert process.poll() is None, f"jupyter lab exited with {process.returncode}:\n{server.log_tail()}"
            assert time.time() < deadline, f"jupyter lab did not answer within 90 s:\n{server.log_tail()}"
            try:
                urllib.request.urlopen(server.url("/api/status"), timeout=5)
                break
            except OSError:
                time.sleep(0.3)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


class Browser:
    """One Chromium with a fresh profile; records console errors and requests to the outside."""

    def __init__(self, context, lab_server, out):
        self.context, self.lab, self.out = context, lab_server, out
        self.console, self.external, self.server_errors, self.shots = [], [], [], []
        context.route("**/*", self._route)
        self.page = context.pages[0] if context.pages else context.new_page()
        self.page.set_default_timeout(60_000)
        self.page.on("console", self._on_console)
        self.page.on("response", lambda r: r.status >= 500 and self.server_errors.append(f"{r.status} {r.url}"))
        self.page.on("pageerror", lambda error: self.console.append(
            {"type": "pageerror", "text": f"{error.name}: {error.message}\n{error.stack or ''}", "url": ""}))

    def _route(self, route):
        url = route.request.url
        if url.startswith((self.lab.base + "/", "data:", "blob:")):
            route.continue_()
        else:
            self.external.append(url)
            route.abort()

    def _on_console(self, message):
        if message.type in ("error", "assert"):
            self.console.append({"type": message.type, "text": message.text,
                                 "url": (message.location or {}).get("url", "")})

    def shot(self, name, **options):
        path = self.out / f"{len(self.shots) + 1:02d}-{name}.png"
        self.page.screenshot(path=str(path), **options)
        self.shots.append(path)
        return path

    def course_errors(self):
        return [e for e in self.console if COURSE_MARKERS.search(e["text"] + " " + e["url"])]


@pytest.fixture
def browser(request, tmp_path):
    """Chromium on the students' copy (parametrize indirectly with "instructor_lab" for the course)."""
    jupyterlab = request.getfixturevalue(getattr(request, "param", "student_lab"))
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: the browser tests drive Debian's Chromium. "
                    "`.ci/run` installs it (apt-get install -y chromium); never `playwright install`.")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Python Playwright is missing: install the test extras (pip install -e '.[test]').")

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=str(CHROMIUM), headless=True,
            args=CHROMIUM_ARGS, viewport=VIEWPORT)
        session = Browser(context, jupyterlab, tmp_path)
        try:
            yield session
        finally:
            try:
                session.page.goto("about:blank")  # close the notebook's websockets before the browser
            finally:
                context.close()
    (tmp_path / "console.txt").write_text(json.dumps(session.console, indent=2) + "\n")
    print(f"screenshots: {tmp_path}")
    errors = session.course_errors()
    assert not errors, "browser console errors from the course's own code:\n" + json.dumps(errors, indent=2)
    assert not session.external, f"the page asked for something outside localhost: {session.external}"
    assert not session.server_errors, f"the server failed requests (see its log): {session.server_errors}"


# ---- steps in JupyterLab ---------------------------------------------------------------------

def open_notebook(b, path):
    page = b.page
    n_cells = len(nbformat.read(str(b.lab.root / path), as_version=4).cells)
    page.goto(b.lab.url(f"/lab/tree/{path}", reset=True))
    page.wait_for_selector(".jp-NotebookPanel .validate-button", state="visible")
    # Ready when every cell is rendered (windowing mode "none"), the loading spinner is gone
    # and the status bar says the kernel is idle.
    page.wait_for_function(
        """n => document.querySelectorAll('.jp-NotebookPanel .jp-Notebook .jp-Cell').length === n
               && !document.querySelector('.jp-NotebookPanel .jp-Spinner')
               && /\\|\\s*Idle/.test(document.querySelector('#jp-main-statusbar')?.textContent || '')""",
        arg=n_cells, timeout=WAIT_MS)
    return page


def cells(page):
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")


def type_into_cell(page, index, text):
    """Replace a code cell's source the way a student does: click it, select all, type."""
    editor = cells(page).nth(index).locator(".cm-content")
    editor.scroll_into_view_if_needed()
    editor.click()
    page.keyboard.press("Control+a")
    # insert_text types the text as one input event: no auto-indent or auto-closed brackets.
    page.keyboard.insert_text(text)
    page.keyboard.press("Escape")


def run_all(page):
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    # Done when no cell is queued or running and the last code cell ran (or a cell failed).
    page.wait_for_function(
        """() => {
          const prompts = [...document.querySelectorAll(
            '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputArea-prompt')]
            .map(p => p.textContent.trim());
          const failed = document.querySelector(
            '.jp-NotebookPanel:not(.lm-mod-hidden) [data-mime-type="application/vnd.jupyter.error"]');
          return prompts.length > 0 && !prompts.some(p => p.includes('*'))
                 && (/\\d/.test(prompts[prompts.length - 1]) || failed !== null);
        }""", timeout=WAIT_MS)


def error_outputs(page):
    return page.locator('.jp-NotebookPanel:not(.lm-mod-hidden) [data-mime-type="application/vnd.jupyter.error"]')


def validate(page):
    """Press nbgrader's Validate button; return the results dialog once it shows."""
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .validate-button").click()
    dialog = page.locator(".jp-Dialog")
    dialog.locator(".validation-success, .validation-failed, .validation-changed, .validation-passed, pre") \
        .first.wait_for(timeout=WAIT_MS)
    return dialog


def assert_no_line_overflows(dialog):
    """Every line of the results is inside the dialog: nothing (the hint, usually) is cut off at its edge."""
    overflowing = dialog.evaluate("""d => {
        const box = d.querySelector('.jp-Dialog-content').getBoundingClientRect();
        return [...d.querySelectorAll('pre, pre *')].filter(el => {
            const r = el.getBoundingClientRect();
            return el.scrollWidth > el.clientWidth + 1 || r.right > box.right + 1;
        }).map(el => el.textContent.slice(0, 80));
    }""")
    assert overflowing == [], f"lines overflow the Validate dialog: {overflowing}"


def close_dialog(page):
    page.locator(".jp-Dialog .jp-mod-accept").click()
    page.locator(".jp-Dialog").wait_for(state="detached")


# ---- the tests -------------------------------------------------------------------------------

def test_server_is_offline_safe_and_serves_nbgrader(instructor_lab):
    jupyterlab = instructor_lab

    def get(path):
        return json.load(urllib.request.urlopen(jupyterlab.url(path), timeout=10))

    notification = get("/lab/api/settings/@jupyterlab/apputils-extension:notification")["schema"]["properties"]
    assert notification["fetchNews"]["default"] == "false" and notification["checkForUpdates"]["default"] is False
    tracker = get("/lab/api/settings/@jupyterlab/notebook-extension:tracker")["schema"]["properties"]
    assert tracker["windowingMode"]["default"] == "none", "the tests render every cell"
    assert get("/lab/api/news") == {"news": []}
    assert get("/lab/api/update")["notification"] is None
    page = urllib.request.urlopen(jupyterlab.url("/lab"), timeout=10).read().decode()
    assert "@jupyter/nbgrader" in page, "nbgrader's lab extension is not enabled"
    # nbgrader's server extensions answer: the formgrader, and the version check of the Validate button.
    urllib.request.urlopen(jupyterlab.url("/formgrader"), timeout=30)
    urllib.request.urlopen(jupyterlab.url(f"/nbgrader_version?version={nbgrader.__version__}"), timeout=30)



def test_student_fills_answers_runs_all_and_validates(browser):
    page = open_notebook(browser, f"notebooks/{NB01}/{NB01}.ipynb")
    browser.shot("notebook-01-opened")
    answers = _answer_cells(NB01)
    assert answers[0][1] == "softmax"
    for index, grade_id in answers:   # softmax first, then the notebook's other exercises
        type_into_cell(page, index, _answer(NB01, grade_id))
    cells(page).nth(answers[0][0]).scroll_into_view_if_needed()
    browser.shot("notebook-01-softmax-typed")

    run_all(page)
    failures = error_outputs(page)
    assert failures.count() == 0, "a cell failed after Run All:\n" + "\n".join(failures.all_inner_texts())
    cells(page).nth(answers[0][0] + 1).scroll_into_view_if_needed()
    browser.shot("notebook-01-ran-all")

    dialog = validate(page)
    browser.shot("notebook-01-validate")
    assert dialog.locator(".validation-success").count() == 1, dialog.inner_text()
    assert "Success! Your notebook passes all the tests." in dialog.inner_text()
    close_dialog(page)

    # Validate saved the notebook first: the answers typed in the browser are in the file.
    saved = nbformat.read(str(browser.lab.root / "notebooks" / NB01 / f"{NB01}.ipynb"), as_version=4)
    softmax = next(c for c in saved.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "softmax")
    assert softmax.source.strip() == _answer(NB01, "softmax").strip()
    assert "NotImplementedError" not in softmax.source


def test_validate_names_the_exercise_and_the_cause_then_succeeds_once_fixed(browser):
    """Notebook 03 as a student meets it: a typo in split_heads, Validate, fix, Validate again."""
    page = open_notebook(browser, f"notebooks/{NB03}/{NB03}.ipynb")
    answers = dict((grade_id, index) for index, grade_id in _answer_cells(NB03))
    for grade_id, index in answers.items():
        answer = _answer(NB03, grade_id)
        if grade_id == "split_heads":
            answer = answer.replace("return ", "return (", 1)   # a bracket never closed
        type_into_cell(page, index, answer)
    dialog = validate(page)
    browser.shot("notebook-03-validate-syntax-error")
    text = " ".join(dialog.inner_text().split())  # the results wrap their lines
    assert dialog.locator(".validation-failed").count() == 1, text
    first = " ".join(dialog.locator("pre").first.inner_text().split())
    assert "split_heads" in first and "SyntaxError" in first and "line" in first, text
    assert "cell starting" not in text and "def _flat_bools" not in text
    assert "A test of MultiHeadAttention" in text and "fix that first" in text, "the tests it broke say why"
    assert "test_MultiHeadAttention" not in text and not re.search(r"\bcell \d+", text), "no names students never see"
    assert_no_line_overflows(dialog)
    close_dialog(page)

    type_into_cell(page, answers["split_heads"], _answer(NB03, "split_heads"))
    dialog = validate(page)
    browser.shot("notebook-03-validate-fixed")
    assert dialog.locator(".validation-success").count() == 1, dialog.inner_text()
    close_dialog(page)


def test_attention_heatmap_renders(browser):
    page = open_notebook(browser, f"notebooks/{NB02}/{NB02}.ipynb")
    # The course's map, a Markdown attachment, renders at its size with its alt text.
    course_map = cells(page).nth(1).locator(".jp-RenderedMarkdown img").first
    course_map.wait_for()
    size = course_map.evaluate("img => [img.naturalWidth, img.naturalHeight, img.complete]")
    assert size == [figure1.WIDTH, figure1.HEIGHT, True], f"the course's map did not render: {size}"
    assert course_map.get_attribute("alt") == figure1.alt_text(NB02)
    assert not [e for e in browser.console if "Cannot render" in e["text"]], browser.console
    for index, grade_id in _answer_cells(NB02):
        type_into_cell(page, index, _answer(NB02, grade_id))
    run_all(page)
    failures = error_outputs(page)
    assert failures.count() == 0, "a cell failed after Run All:\n" + "\n".join(failures.all_inner_texts())

    nb = nbformat.read(str(ROOT / "notebooks" / NB02 / f"{NB02}.ipynb"), as_version=4)
    heatmap = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code" and "attention_heatmap(" in c.source)
    image = cells(page).nth(heatmap).locator(".jp-OutputArea-output img").first
    image.wait_for()
    image.scroll_into_view_if_needed()
    size = image.evaluate("img => [img.naturalWidth, img.naturalHeight, img.complete]")
    assert size[2] and size[0] >= 300 and size[1] >= 150, f"the heatmap image is too small or broken: {size}"
    assert image.get_attribute("src").startswith("data:image/png")

    # The README's screenshot: the heatmap with the notebook around it, file browser closed.
    page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current").first.click()
    page.wait_for_timeout(300)
    image.evaluate("img => img.scrollIntoView({block: 'end'})")  # the whole figure, its code above
    page.mouse.move(0, 0)
    shot = browser.shot("notebook-02-heatmap")
    if os.environ.get("COURSE_UPDATE_SCREENSHOT"):
        shutil.copyfile(shot, README_SCREENSHOT)


@pytest.mark.parametrize("browser", ["instructor_lab"], indirect=True)
def test_instructor_opens_the_formgrader(browser):
    page = browser.page
    page.goto(browser.lab.url("/formgrader"))
    page.wait_for_selector("text=Manage Assignments")
    for aid in (NB01, NB02):
        page.wait_for_selector(f"text={aid}")
    browser.shot("formgrader")
    assert "error" not in page.title().lower()


def test_validate_traces_a_follow_on_failure_to_its_cause(browser):
    """A split_heads that runs but is wrong, used by a right MultiHeadAttention: Validate says to fix split_heads first."""
    page = open_notebook(browser, f"notebooks/{NB03}/{NB03}.ipynb")
    wrong = (CATALOGUE / NB03 / "split_heads" / "wrong_reshape_no_transpose.py").read_text()
    for index, grade_id in _answer_cells(NB03):
        type_into_cell(page, index, wrong if grade_id == "split_heads" else _answer(NB03, grade_id))
    dialog = validate(page)
    browser.shot("notebook-03-validate-traced")
    text = " ".join(dialog.inner_text().split())
    assert "A test of split_heads" in text, text
    traced = text[text.index("A test of MultiHeadAttention"):]
    assert "MultiHeadAttention uses split_heads, whose test fails above: fix split_heads first" in traced, text
    assert "Traceback" not in text and "checks.py" not in text and "site-packages" not in text
    assert_no_line_overflows(dialog)
    close_dialog(page)
