"""`course publish`: the students' copy holds the released notebooks up to --upto and gives nothing away.

The unit tests publish with the release check stubbed out (it runs nbgrader on every notebook
for ~20 s; tests/test_release.py checks the release itself, and the slow test below publishes
through `course publish` with the real check). Each published file is read here with a leak
check of the test's own, so the scan in course_utils/grader/term/publish.py is not its own judge.
"""
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import urllib.request
from pathlib import Path

import pytest
import yaml

from conftest import COURSE, IDS, ROOT, run_course
from course_utils import ipynb
from course_utils.cli import build_parser
from course_utils.course import PUBLISHED_MARKER, VALIDATE_EXTENSION, Course, CourseError
from course_utils.grader.term import publish as pub
from course_utils.grader.term import release
from course_utils.qa import figure1

REPOSITORY = "teacher/attention-student"
UPTO = "02"
PUBLISHED = IDS[:3]
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")


def _no_release_check(course, ids):
    return {}


@pytest.fixture(scope="module")
def upto02(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(release, "check", _no_release_check)
        return pub.publish(COURSE, tmp_path_factory.mktemp("publish") / "student", upto=UPTO, git=True,
                           repository=REPOSITORY)


@pytest.fixture(scope="module")
def everything(tmp_path_factory):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(release, "check", _no_release_check)
        return pub.publish(COURSE, tmp_path_factory.mktemp("publish") / "student")


@pytest.fixture
def no_release_check(monkeypatch):
    monkeypatch.setattr(release, "check", _no_release_check)


def _files(folder):
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if p.is_file() and ".git" not in p.relative_to(folder).parts}


# ---- the test's own view of what is secret --------------------------------------------------

def _inside(source, begin, end):
    inside, lines = False, []
    for line in source.splitlines():
        if begin in line:
            inside = True
        elif end in line:
            inside = False
        elif inside:
            lines.append(line.strip())
    return lines


def _secrets():
    """({line: {(id, grade_id)}} of answers, {line: {id}} of hidden tests), of every notebook."""
    answers, hidden = {}, {}
    for aid in IDS:
        for cell in ipynb.read(COURSE.solution(aid)).cells:
            grade_id = ipynb.nbgrader_meta(cell).get("grade_id")
            for line in _inside(cell.source, "### BEGIN SOLUTION", "### END SOLUTION"):
                if not pub.trivial(line):
                    answers.setdefault(line, set()).add((aid, grade_id))
            for line in _inside(cell.source, "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"):
                if not pub.trivial(line):
                    hidden.setdefault(line, set()).add(aid)
    return answers, hidden


ANSWERS, HIDDEN = _secrets()


def _shown(ids):
    """Lines the notebooks `ids` show students anyway: in their solutions, outside answers, hidden
    tests and provided cells (a signature, a visible test that a hidden test repeats)."""
    shown = set()
    for aid in ids:
        for cell in ipynb.read(COURSE.solution(aid)).cells:
            if "provided_from" in cell.metadata.get("course", {}):
                continue
            source = cell.source
            if ipynb.nbgrader_meta(cell).get("solution"):
                source = source.split("### BEGIN SOLUTION")[0] + source.split("### END SOLUTION")[-1]
            if "### BEGIN HIDDEN TESTS" in source:
                source = source.split("### BEGIN HIDDEN TESTS")[0] + source.split("### END HIDDEN TESTS")[-1]
            shown.update(line.strip() for line in source.splitlines())
    return shown


def _lines(folder):
    """(file, line, notebook id, provided_from) for every line of every file of `folder`."""
    for rel in sorted(_files(folder)):
        path = folder / rel
        text = path.read_bytes().decode("utf-8", errors="replace")
        if path.suffix != ".ipynb":
            for line in text.splitlines():
                yield rel, line.strip(), None, None
            continue
        notebook = json.loads(text)
        for cell in notebook["cells"]:
            assert not cell.get("outputs"), f"{rel} carries outputs"
            # The one attachment allowed is the map; tests/qa/test_figure1.py checks that it is current.
            attachments = {name: list(item) for name, item in (cell.get("attachments") or {}).items()}
            the_map = attachments == {figure1.FILE_NAME: [figure1.MIME]} and cell["id"] == "course-map"
            assert not attachments or the_map, f"{rel} carries an attachment other than the map"
            origin = cell["metadata"].get("course", {}).get("provided_from")
            for line in "".join(cell["source"]).splitlines():
                yield rel, line.strip(), path.stem, origin
        for line in json.dumps(notebook["metadata"], indent=1).splitlines():
            yield rel, line.strip(), None, None


def _leaks(folder, published):
    """Lines of answers and hidden tests in `folder`, and how many earlier answers sit in provided cells."""
    shown, leaks, provided = _shown(published), [], 0
    for rel, line, aid, origin in _lines(folder):
        if aid and any(marker in line for marker in MARKERS):  # code may name them, a notebook may not
            leaks.append((rel, line, "marker"))
        if line in shown:
            continue
        if line in ANSWERS:
            source = tuple(origin.split("/")) if origin else None
            if source in ANSWERS[line] and source[0] < aid and source[0] in published:
                provided += 1
            else:
                leaks.append((rel, line, ANSWERS[line]))
        if line in HIDDEN:
            leaks.append((rel, line, HIDDEN[line]))
    return leaks, provided


# ---- what is published ----------------------------------------------------------------------

def test_upto_publishes_those_notebooks_and_the_students_files_only(upto02):
    folder = upto02.dest
    assert upto02.ids == tuple(PUBLISHED)
    assert sorted(p.name for p in (folder / "notebooks").iterdir()) == PUBLISHED
    files = _files(folder)
    assert set(upto02.files) == files
    assert {f"notebooks/{aid}/{aid}.ipynb" for aid in PUBLISHED} <= files
    for aid in PUBLISHED:
        assert (folder / f"notebooks/{aid}/{aid}.ipynb").read_bytes() == COURSE.release(aid).read_bytes()
    package = {f.removeprefix("course_utils/") for f in files if f.startswith("course_utils/")}
    assert {p for p in package if p.startswith("cli/")} == {"cli/__init__.py", "cli/validate.py", "cli/lab.py",
                                                                  "cli/common.py"}
    assert {"__init__.py", "__main__.py", "course.py", "ipynb.py", "notebook/__init__.py"} <= package
    assert {p.relative_to(ROOT / "course_utils").as_posix() for p in (ROOT / "course_utils/notebook").glob("*.py")} \
        <= package, "the kernel's helpers, all of them"
    for name in ("solutions", "tests", "course_utils/grader", "course_utils/qa", "course_utils/bench", ".ci",
                 "docs", "build", "gradebook.db", "submitted", "reports"):
        assert not (folder / name).exists(), name
    assert not any(f.startswith(("solutions/", "tests/", "docs/", ".ci/")) or "bug_catalogue" in f for f in files)
    assert (folder / "nbgrader_config.py").read_text() == (ROOT / "nbgrader_config.py").read_text()
    marker = json.loads((folder / PUBLISHED_MARKER).read_text())
    assert marker["notebooks"] == PUBLISHED and marker["repository"] == REPOSITORY


def test_everything_by_default(everything):
    assert everything.ids == tuple(IDS)
    assert everything.repository == pub.repository_of(COURSE)
    assert everything.commit is None and not (everything.dest / ".git").exists()


@pytest.mark.parametrize("which", ["upto02", "everything"])
def test_no_answer_and_no_hidden_test_in_any_published_file(which, request):
    report = request.getfixturevalue(which)
    leaks, provided = _leaks(report.dest, list(report.ids))
    assert not leaks, "\n".join(map(str, leaks[:20]))
    if which == "upto02":
        assert provided == 0, "notebooks 00-02 carry no earlier answers"
    else:
        assert provided > 100, "notebooks 03-08 carry earlier answers in provided cells: the check must see them"
        assert report.provided_lines >= provided
    assert report.lines_scanned > 1000


def test_every_answer_and_every_hidden_test_has_lines_the_scan_looks_for():
    """`trivial` leaves out lines anybody writes; what is left still identifies every answer and test."""
    secrets = pub.course_secrets(COURSE, IDS)  # everything published: the fewest lines left to look for
    for aid in IDS:
        solution = ipynb.read(COURSE.solution(aid))
        for grade_id in ipynb.answer_cells(solution):
            found = [line for line, owners in secrets.answers.items()
                     if (aid, grade_id) in owners and line not in secrets.public]
            assert found, f"the scan could not tell {aid}/{grade_id}'s answer"
        for cell in solution.cells:
            if "### BEGIN HIDDEN TESTS" in cell.source:
                lines = _inside(cell.source, "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")
                assert [ln for ln in lines if ln in secrets.hidden and ln not in secrets.public], \
                    f"the scan could not tell {aid}'s hidden test in {ipynb.nbgrader_meta(cell)['grade_id']}"


@pytest.mark.parametrize("line, trivial", [
    ("", True), ("])", True), ("return x", True), ("return k, v", True), ("else:", True),
    ("super().__init__()", True), ("if torch.cuda.is_available():", True), ("# shape check", True),
    ("return (tokens != pad_id)[:, None, None, :]", False), ("output = weights @ value", False),
    ("# A row whose keys are all masked is all -inf", False),
    ('"the ValueError should name both the sequence length and max_len.")', False),
])
def test_trivial_lines(line, trivial):
    assert pub.trivial(line) is trivial


def test_students_pyproject_has_the_base_pins_and_no_extras(upto02):
    instructor = tomllib.loads((ROOT / "pyproject.toml").read_text())
    student = tomllib.loads((upto02.dest / "pyproject.toml").read_text())
    assert student["project"]["dependencies"] == instructor["project"]["dependencies"]
    assert "optional-dependencies" not in student["project"]
    assert student["project"]["urls"] == {"Repository": f"https://github.com/{REPOSITORY}"}
    assert student["project"]["scripts"] == instructor["project"]["scripts"] == {"course": "course_utils.cli:main"}
    assert student["build-system"] == instructor["build-system"]
    assert student["tool"]["setuptools"]["packages"]["find"]["include"] == ["course_utils*"]
    assert "pytest" not in student["tool"]
    env = yaml.safe_load((upto02.dest / "environment.yml").read_text())  # what Binder builds
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert [p for p in pip if not p.startswith("-")] == student["project"]["dependencies"]
    assert "-e ." in pip


def test_students_readme_badge_table_install_and_grading(upto02):
    readme = (upto02.dest / "README.md").read_text()
    badge = re.search(r"\]\((https://mybinder\.org/v2/gh/([^/]+/[^/]+)/HEAD\?urlpath=lab/tree/([\w/]+))\)", readme)
    assert badge and badge.group(2) == REPOSITORY and badge.group(3) == "notebooks"
    assert upto02.binder_url == badge.group(1)
    assert (upto02.dest / badge.group(3)).is_dir() and (upto02.dest / "environment.yml").is_file()
    table = re.findall(r"^\| \d\d \| `(\d\d_\w+)` \|", readme, flags=re.MULTILINE)
    assert table == PUBLISHED, "the table lists the published notebooks only"
    assert not any(aid in readme for aid in IDS[3:])
    assert pub.INSTALL_COMMAND == "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/course lab"
    assert pub.INSTALL_COMMAND in readme
    for words in ("Validate", "course validate notebooks/01_queries_keys_values/01_queries_keys_values.ipynb",
                  "visible test cell is worth 1 point", "hidden test", "sandbox", "deadline", "provided",
                  "one at a time"):
        assert words in readme, words
    assert "| 01 | `01_queries_keys_values` |" in readme and "| 4 + 8 |" in readme
    for aid in IDS:  # what the README says of points stays true
        for cell in ipynb.read(COURSE.solution(aid)).cells:
            meta = ipynb.nbgrader_meta(cell)
            if meta.get("grade") and not meta.get("solution"):
                hidden = "### BEGIN HIDDEN TESTS" in cell.source
                assert meta["points"] > 1 if hidden else meta["points"] == 1, (aid, meta["grade_id"])


def test_repository_defaults_to_the_courses_and_is_checked():
    url = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Repository"]
    assert pub.repository_of(COURSE) == url.removeprefix("https://github.com/")
    assert pub.repository_of(COURSE, "https://github.com/a/b.git") == "a/b"
    with pytest.raises(CourseError, match="OWNER/NAME"):
        pub.repository_of(COURSE, "not a repository")


def test_the_copys_course_command_has_the_students_commands_only(upto02):
    done = subprocess.run([sys.executable, "-m", "course_utils", "--help"], cwd=upto02.dest,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    commands = set(re.findall(r"^    (\w+) ", done.stdout, flags=re.MULTILINE))
    assert commands == {"validate", "lab"}, done.stdout
    where = subprocess.run([sys.executable, "-c", "import course_utils; print(course_utils.__file__)"],
                           cwd=upto02.dest, capture_output=True, text=True, timeout=60, check=False).stdout
    assert where.strip() == str(upto02.dest / "course_utils" / "__init__.py")


def test_git_makes_one_commit_whose_tree_is_the_folder(upto02):
    def git(*args):
        return subprocess.run(["git", "-C", str(upto02.dest), *args], capture_output=True, text=True,
                              check=True).stdout
    assert git("rev-list", "--all", "--count").strip() == "1"
    assert git("rev-parse", "HEAD").strip() == upto02.commit
    assert set(git("ls-tree", "-r", "--name-only", "HEAD").splitlines()) == _files(upto02.dest)
    assert git("status", "--porcelain", "--ignored") == "", "the folder is exactly the commit"
    history = git("log", "--all", "--name-only", "--format=").split()
    assert history and not [p for p in history if p.startswith(("solutions/", "tests/", "course_utils/grader/"))]
    assert git("remote") == ""


def test_cli_defaults_are_the_functions():
    args = build_parser().parse_args(["publish", "somewhere"])
    defaults = inspect.signature(pub.publish).parameters
    for name in ("upto", "git", "repository", "force"):
        assert getattr(args, name) == defaults[name].default, name


# ---- refusals -------------------------------------------------------------------------------

def test_refuses_a_non_empty_folder_and_one_inside_the_course(tmp_path, no_release_check):
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    with pytest.raises(CourseError, match="not empty"):
        pub.publish(COURSE, busy)
    with pytest.raises(CourseError, match="does not look like a previous"):
        pub.publish(COURSE, busy, force=True)
    assert [p.name for p in busy.iterdir()] == ["notes.txt"]
    for inside in (ROOT, ROOT / "build" / "student-copy", ROOT / "notebooks" / "student"):
        with pytest.raises(CourseError, match="inside the course"):
            pub.publish(COURSE, inside)
        assert inside == ROOT or not inside.exists()
    with pytest.raises(CourseError, match="holds the course"):
        pub.publish(COURSE, ROOT.parent, force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["busy"], "nothing written, no staging left"
    result = run_course("publish", busy)
    assert result.returncode == 2 and "not empty" in result.stderr


def test_refuses_a_release_out_of_sync(tmp_path, monkeypatch):
    monkeypatch.setattr(release, "check", lambda course, ids: {ids[1]: ["01.ipynb differs from what solutions/ gives"]})
    with pytest.raises(CourseError, match=f"course generate {IDS[1]}"):
        pub.publish(COURSE, tmp_path / "student", upto="01")
    assert not any(tmp_path.iterdir())


def test_force_replaces_a_previous_publish_and_keeps_its_history(tmp_path, no_release_check):
    dest = tmp_path / "student"
    first = pub.publish(COURSE, dest, upto="01", git=True)
    (dest / "stray.txt").write_text("left from before")
    second = pub.publish(COURSE, dest, upto="02", force=True)
    assert second.kept_history and second.commit is None
    assert not (dest / "stray.txt").exists() and (dest / f"notebooks/{IDS[2]}").is_dir()
    def git(*args):
        return subprocess.run(["git", "-C", str(dest), *args], capture_output=True, text=True, check=True).stdout

    assert git("log", "--format=%H").split() == [first.commit]
    status = git("status", "--porcelain")
    assert f"notebooks/{IDS[2]}/" in status, "the next release shows as a change to commit"


# ---- the scan catches leaks -----------------------------------------------------------------

def _course_copy(tmp_path):
    root = tmp_path / "course"
    ignore = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints")
    for name in ("solutions", "notebooks", "course_utils"):
        shutil.copytree(ROOT / name, root / name, ignore=ignore)
    for name in ("nbgrader_config.py", "pyproject.toml", "environment.yml", "README.md"):
        shutil.copy(ROOT / name, root / name)
    return Course(root)


def _an_answer_line(aid):
    return max((line for line, owners in ANSWERS.items() if any(o[0] == aid for o in owners)), key=len)


def test_a_release_notebook_holding_an_answer_is_caught(tmp_path, no_release_check):
    course = _course_copy(tmp_path)
    aid = PUBLISHED[2]
    nb = ipynb.read(course.release(aid))
    code = next(c for c in nb.cells if c.cell_type == "code" and not ipynb.nbgrader_meta(c).get("solution"))
    code.source += "\n" + _an_answer_line(aid)
    ipynb.write(nb, course.release(aid))
    with pytest.raises(pub.LeakError, match=f"the answer to {aid}/") as caught:
        pub.publish(course, tmp_path / "student", upto=UPTO)
    assert caught.value.leaks[0].path == f"notebooks/{aid}/{aid}.ipynb"
    assert not (tmp_path / "student").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["course"]


def test_an_answer_or_hidden_test_in_a_copied_module_is_caught(tmp_path, no_release_check):
    course = _course_copy(tmp_path)
    trusted = course.root / "course_utils" / "notebook" / "trusted.py"
    later = IDS[5]  # not published with --upto 02
    hidden_line = max((line for line, owners in HIDDEN.items() if IDS[1] in owners), key=len)
    trusted.write_text(trusted.read_text() + f'\n# {_an_answer_line(later)}\n_NOTES = """\n{hidden_line}\n"""\n')
    with pytest.raises(pub.LeakError) as caught:
        pub.publish(course, tmp_path / "student", upto=UPTO)
    found = {(leak.path, leak.origin.split()[1]) for leak in caught.value.leaks}
    assert found == {("course_utils/notebook/trusted.py", "answer"), ("course_utils/notebook/trusted.py", "hidden")}


def _notebook(cells):
    """A notebook of code cells (source, provided_from or None)."""
    return ipynb.reads(json.dumps({"cells": [
        {"cell_type": "code", "execution_count": None, "outputs": [], "source": source,
         "metadata": {"course": {"provided_from": origin}} if origin else {}} for source, origin in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 4}))


def test_provided_cells_may_hold_earlier_answers_only(tmp_path):
    """Notebook 04's provided cell may hold 02's answer; its own, a later one's or a mislabelled one's, never."""
    aid, earlier, later = IDS[4], IDS[2], IDS[5]
    sdpa = f"{earlier}/scaled_dot_product_attention"
    allowed = sorted(line for line, owners in ANSWERS.items() if (earlier, "scaled_dot_product_attention") in owners)
    secrets = pub.course_secrets(COURSE, IDS[:5])
    folder = tmp_path / "copy"
    ipynb.write(_notebook([("\n".join(allowed), sdpa)]), folder / f"notebooks/{aid}/{aid}.ipynb")
    clean = pub.scan(folder, secrets, IDS[:5])
    assert not clean.leaks and clean.provided == len(allowed)

    own, late, longest = _an_answer_line(aid), _an_answer_line(later), max(allowed, key=len)
    ipynb.write(_notebook([(own, f"{aid}/make_causal_mask"), (late, sdpa), (late, f"{later}/PositionalEncoding"),
                           (f"x = 1  # {longest}", None)]),
                folder / f"notebooks/{aid}/{aid}.ipynb")
    leaks = pub.scan(folder, secrets, IDS[:5]).leaks
    assert [leak.line for leak in leaks] == [own, late, late, f"x = 1  # {longest}"], leaks
    assert "cell 0" in leaks[0].where and "answer to " + aid in leaks[0].origin


def test_a_delimiter_in_a_notebook_is_caught_and_code_may_name_it(tmp_path):
    folder = tmp_path / "copy"
    ipynb.write(_notebook([("x = 1\n### BEGIN SOLUTION\ny = 2\n### END SOLUTION", None)]),
                folder / f"notebooks/{IDS[1]}/{IDS[1]}.ipynb")
    (folder / "helper.py").write_text('HIDDEN = "### BEGIN HIDDEN TESTS"\n')
    leaks = pub.scan(folder, pub.course_secrets(COURSE, IDS[:2]), IDS[:2]).leaks
    notebook = f"notebooks/{IDS[1]}/{IDS[1]}.ipynb"
    assert [(leak.path, leak.line) for leak in leaks] == [(notebook, "### BEGIN SOLUTION"),
                                                          (notebook, "### END SOLUTION")]


# ---- end to end -----------------------------------------------------------------------------

@pytest.mark.slow
def test_published_copy_installs_and_runs_the_students_commands(tmp_path):
    """`course publish` (with the real release check), then the copy as a student uses it: installed
    with pip into a fresh virtual environment, `course --help`, Validate on the blank release (its
    tests fail; inverted, no test with code passes) and `course lab` answering on /lab."""
    from cli.test_course_lab import _listening_port, lab_token  # tests/cli/test_course_lab.py

    copy = tmp_path / "student"
    done = run_course("publish", copy, "--upto", "01", "--repository", REPOSITORY, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Binder badge: {pub.binder_url(REPOSITORY)}" in done.stdout
    assert "no answer and no hidden test" in done.stdout

    # A fresh venv: the copy installed into it (--no-deps, offline), its dependencies this
    # environment's (a .pth file adds this site-packages, whose own .pth files it does not run:
    # the course's editable install of course_utils stays out).
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    (Path(site) / "zz_course_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                              "--no-build-isolation", "--no-index", "-e", str(copy)],
                             capture_output=True, text=True, timeout=300, check=False)
    assert install.returncode == 0, install.stdout + install.stderr
    course = venv / "bin" / "course"
    where = subprocess.run([python, "-c", "import course_utils; print(course_utils.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert where == str(copy / "course_utils" / "__init__.py"), "the installed course_utils is the copy's"

    listener, port = _listening_port()
    listener.close()
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"), JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTER_DATA_DIR=str(tmp_path / "data"))
    env.pop("COURSE_ROOT", None)
    log = tmp_path / "lab.log"
    with open(log, "w") as out:
        server = subprocess.Popen([course, "lab", "--no-browser", "--port", str(port)], cwd=copy, env=env,
                                  stdout=out, stderr=subprocess.STDOUT)
    try:
        helped = subprocess.run([course, "--help"], cwd=copy, env=env, capture_output=True, text=True, timeout=60,
                                check=False)
        commands = set(re.findall(r"^    (\w+) ", helped.stdout, flags=re.MULTILINE))
        assert helped.returncode == 0 and commands == {"validate", "lab"}, helped.stdout + helped.stderr

        blank = f"notebooks/{IDS[1]}/{IDS[1]}.ipynb"
        failed = subprocess.run([course, "validate", blank], cwd=copy, env=env, capture_output=True, text=True,
                                timeout=300, check=False)
        assert failed.returncode == 1 and "fail" in failed.stdout and "Traceback" not in failed.stderr, \
            failed.stdout + failed.stderr
        inverted = subprocess.run([course, "validate", "--invert", blank], cwd=copy, env=env, capture_output=True,
                                  text=True, timeout=300, check=False)
        assert "Traceback" not in inverted.stderr, inverted.stderr
        passing = re.search(r"(\d+) test cell\(s\) pass", inverted.stdout)
        assert passing, inverted.stdout + inverted.stderr
        # The blank release's hidden-test cells hold only a comment there, and nbgrader counts them
        # as passing: no test cell with code in it passes.
        placeholders = sum(1 for cell in ipynb.read(copy / blank).cells
                           if ipynb.nbgrader_meta(cell).get("grade") and not ipynb.nbgrader_meta(cell).get("solution")
                           and all(ln.strip().startswith("#") or not ln.strip() for ln in cell.source.splitlines()))
        assert int(passing.group(1)) <= placeholders

        token = lab_token(server, log, port)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/lab?token={token}", timeout=30) as page:
            assert page.status == 200
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_binder_enables_the_courses_validate_button(upto02):
    post_build = upto02.dest / "postBuild"
    assert os.access(post_build, os.X_OK), "repo2docker runs postBuild only when it is executable"
    assert f"jupyter server extension enable --sys-prefix {VALIDATE_EXTENSION}" in post_build.read_text()
    module = upto02.dest / Path(*VALIDATE_EXTENSION.split(".")).with_suffix(".py")
    assert "_load_jupyter_server_extension" in module.read_text()


# ---- everything a notebook cites is in the copy -----------------------------------------------

# The test's own reading of a citation: a markdown link that is not a URL, an attachment or an
# anchor, and any path under docs/ written out in a cell (prose, table or code comment).
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)")
_DOCS = re.compile(r"(?<![\w./-])(docs/[\w./-]*\w)")


def _cited(notebook, folder):
    """{cited path, resolved against the copy `folder`} for one notebook of the copy."""
    found = set()
    for cell in ipynb.read(notebook).cells:
        if cell.cell_type == "markdown":
            for link in _LINK.findall(cell.source):
                link = link.split("#")[0]
                if link and not re.match(r"^\w[\w+.-]*:", link):
                    found.add((notebook.parent / link).resolve())
        found.update((folder / path).resolve() for path in _DOCS.findall(cell.source))
    return found


def test_every_path_a_published_notebook_cites_is_in_the_copy(everything):
    folder = everything.dest.resolve()
    cited = {path for aid in everything.ids for path in _cited(folder / "notebooks" / aid / f"{aid}.ipynb", folder)}
    assert folder / "docs" / "recorded-runs.md" in cited, "notebook 07 cites its recorded runs"
    missing = sorted(str(path.relative_to(folder)) for path in cited if not path.exists())
    assert not missing, f"the notebooks cite what the students' copy lacks: {missing}"
    assert all(path.is_relative_to(folder) for path in cited), "a citation leads out of the copy"
    # What a copied document links to is there too (recorded-runs.md links to gpu-runs.md).
    assert (folder / "docs" / "gpu-runs.md").is_file() and pub.missing_citations(folder) == []
    assert {f for f in everything.files if f.startswith("docs/")} == {"docs/recorded-runs.md", "docs/gpu-runs.md"}


def test_only_links_to_notebooks_not_yet_published_wait(upto02):
    folder = upto02.dest
    waiting = pub.missing_citations(folder)
    assert [c.target for c in waiting] == [f"notebooks/{IDS[3]}/{IDS[3]}.ipynb"], "02's Next: link to 03"
    assert pub.missing_citations(folder, [f"notebooks/{aid}" for aid in IDS[3:]]) == []


def test_a_citation_the_copy_would_lack_stops_publish(tmp_path, no_release_check):
    course = _course_copy(tmp_path)
    (course.root / "docs").mkdir()
    (course.root / "docs" / "notes.md").write_text("# Notes\n\nThe figure: ![a plot](images/plot.png)\n")
    (course.root / "docs" / "images").mkdir()
    (course.root / "docs" / "images" / "plot.png").write_bytes(b"\x89PNG\r\n")
    aid = PUBLISHED[1]
    nb = ipynb.read(course.release(aid))
    nb.cells.append(ipynb.reads(json.dumps({"cells": [{"cell_type": "markdown", "metadata": {}, "source":
        "See `docs/notes.md` and [the derivation](../../docs/derivation.md#step-2)."}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 4})).cells[0])
    ipynb.write(nb, course.release(aid))
    with pytest.raises(CourseError, match=rf"notebooks/{aid}/{aid}\.ipynb cites \.\./\.\./docs/derivation\.md, "
                                          "which the copy lacks") as caught:
        pub.publish(course, tmp_path / "student", upto=UPTO)
    assert "notes.md" not in str(caught.value) and "nothing was published" in str(caught.value)
    assert not (tmp_path / "student").exists()
    (course.root / "docs" / "derivation.md").write_text("# Derivation\n")
    report = pub.publish(course, tmp_path / "student", upto=UPTO)
    assert {f for f in report.files if f.startswith("docs/")} == \
        {"docs/notes.md", "docs/derivation.md", "docs/images/plot.png"}, "what is cited, and what that cites"


def test_students_readme_says_what_to_hand_in_and_how(upto02):
    readme = (upto02.dest / "README.md").read_text()
    hand_in = readme.split("## Hand in", 1)[1].split("\n## ", 1)[0]
    for words in ("notebooks/NN_name/NN_name.ipynb", "name unchanged", "after **Validate** reports no failing test",
                  "JupyterHub with nbgrader's exchange", "**Submit**", "learning platform",
                  "upload the `.ipynb` file itself", "one upload per assignment", "Self-study", "nothing to hand in"):
        assert words in hand_in, words
    assert "Submit as your instructor tells you" not in readme
    install = readme.split("## Install and open", 1)[1].split("\n## ", 1)[0]
    assert pub.INSTALL_COST in install and re.search(r"about [\d.]+ GB into `\.venv/`", install)
    assert re.search(r"install took \d+ seconds", install)
