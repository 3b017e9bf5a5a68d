"""What a student's copy holds besides the notebooks: the students' part of course_utils, and a
pyproject.toml, environment.yml and README.md written for students.
"""
from __future__ import annotations

import ast
import json
import re
import tomllib
from pathlib import Path

from course_utils.course import Course, CourseError
from course_utils.grader.term.publish.leaks import MARKERS
from course_utils.ipynb import nbgrader_meta, read

# ---- what a student's copy holds ------------------------------------------------------------

# The `course` subcommands a student uses; the copy's cli/__init__.py skips every other one.
STUDENT_COMMANDS = ("validate", "lab")
# Where the students' part of course_utils starts; the course_utils modules these import are added.
STUDENT_ENTRY_POINTS = ("__init__.py", "__main__.py", "cli/__init__.py",
                        *(f"cli/{name}.py" for name in STUDENT_COMMANDS))
# Published whole: a notebook's setup cell loads these modules by name (importlib), not by import.
STUDENT_PACKAGES = ("notebook",)
# Never in a student's copy: a module of the copy that needs one of these is an error.
INSTRUCTOR_PACKAGES = ("grader", "qa", "bench")
# Course-root files students get as they are (Validate reads nbgrader_config.py).
COPIED_FILES = ("nbgrader_config.py",)
# The install command of the students' README (and of the course's own README, for students).
INSTALL_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/course lab"

# What INSTALL_COMMAND costs, measured: a fresh copy from `course publish`, then
# `/usr/bin/time python3 -m venv .venv && .venv/bin/pip install -e .` and `du -sh .venv`, on a
# 2-core Linux machine (Python 3.11.7, 2026-11-25) whose pip read most wheels, torch's CPU build
# among them, from local folders (/opt/wheels, a file:// index) and downloaded 45 (66 MB).
# Measure again when the pins change.
INSTALL_COST = """\
It installs about 1.4 GB into `.venv/` (torch alone is 0.75 GB). On a 2-core Linux machine the
install took 55 seconds, but that machine's pip found most packages, torch's CPU build among
them, in a local folder: expect longer where pip downloads them all (about 325 MB of wheels).
On Linux, PyPI's default torch wheel also pulls gigabytes of CUDA packages; without an NVIDIA
GPU, install torch's CPU build after `python3 -m venv .venv` and before the rest, as
`environment.yml` does:
`.venv/bin/pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu`."""

STUDENT_GITIGNORE = """\
# made by `course publish`: what working on the course leaves behind
.venv/
__pycache__/
*.egg-info/
.ipynb_checkpoints/
build/
gradebook.db
"""

STUDENT_ENVIRONMENT_HEADER = """\
# Conda / Binder environment for Attention, Graded (the students' copy, made by `course publish`).
# Binder builds the course from this file; `conda env create -f environment.yml` does the same
# on your machine. Its pins are pyproject.toml's.
"""



# ---- the copy -------------------------------------------------------------------------------

def _imported_modules(path: Path, module: str) -> set[str]:
    """The course_utils modules (and `module.name` candidates) that the file `path` of `module` imports."""
    found = set()
    package = module.rsplit(".", 1)[0] if path.name != "__init__.py" else module
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError as error:
        raise CourseError(f"{path} is not valid Python ({error}): fix it before publishing.") from error
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in found if name == "course_utils" or name.startswith("course_utils.")}


def student_modules(package: str | Path) -> list[str]:
    """The files of the course_utils folder `package` (relative paths) that a students' copy holds.

    The entry points (STUDENT_ENTRY_POINTS), the packages published whole (STUDENT_PACKAGES),
    every course_utils module these import, read from their source, and the `__init__.py` of
    each package on the way. Raises CourseError if any of them needs the instructors' tooling.
    """
    package = Path(package)
    wanted = set(STUDENT_ENTRY_POINTS)
    for name in STUDENT_PACKAGES:
        wanted.update(p.relative_to(package).as_posix() for p in (package / name).rglob("*.py")
                      if "__pycache__" not in p.parts)
    todo = sorted(wanted)
    while todo:
        rel = todo.pop()
        if not (package / rel).is_file():
            raise CourseError(f"course_utils/{rel} is missing: the students' copy needs it.")
        module = ".".join(["course_utils", *Path(rel).with_suffix("").parts])
        for name in _imported_modules(package / rel, module.removesuffix(".__init__")):
            parts = name.split(".")[1:]
            for candidate in ("/".join([*parts, "__init__.py"]), "/".join(parts) + ".py"):
                if parts and (package / candidate).is_file() and candidate not in wanted:
                    wanted.add(candidate)
                    todo.append(candidate)
    for rel in list(wanted):
        folders = rel.split("/")[:-1]
        wanted.update("/".join([*folders[:n], "__init__.py"]) for n in range(1, len(folders) + 1))
    instructors = sorted(rel for rel in wanted if rel.split("/")[0] in INSTRUCTOR_PACKAGES)
    if instructors:
        raise CourseError(f"the students' part of course_utils imports the instructors' tooling: "
                          f"{', '.join('course_utils/' + r for r in instructors)}")
    return sorted(wanted)


def repository_of(course: Course, repository: str | None = None) -> str:
    """OWNER/NAME of the public repository: `repository`, or the one of the course's pyproject [project.urls]."""
    if repository is None:
        pyproject = tomllib.loads((course.root / "pyproject.toml").read_text(encoding="utf-8"))
        repository = pyproject.get("project", {}).get("urls", {}).get("Repository")
        if not repository:
            raise CourseError("pyproject.toml names no [project.urls] Repository: pass --repository OWNER/NAME.")
    name = repository.strip().removeprefix("https://").removeprefix("github.com/").removesuffix("/")
    name = name.removesuffix(".git")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+", name):
        raise CourseError(f"{repository!r} is not a GitHub repository: give OWNER/NAME, e.g. attention-graded/course.")
    return name


def binder_url(repository: str, folder: str = "notebooks") -> str:
    """The Binder link that opens `folder` of `repository` (OWNER/NAME) in JupyterLab."""
    return f"https://mybinder.org/v2/gh/{repository}/HEAD?urlpath=lab/tree/{folder}"


def _toml_value(value: object, indent: str = "") -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        items = [_toml_value(item) for item in value]
        if len(", ".join(items)) < 60:
            return "[" + ", ".join(items) + "]"
        return "[\n" + "".join(f"    {item},\n" for item in items) + "]"
    raise TypeError(f"no TOML for {value!r}")


def _toml(table: dict, path: tuple[str, ...] = ()) -> list[str]:
    lines = []
    scalars = {key: value for key, value in table.items() if not isinstance(value, dict)}
    if scalars and path:
        lines += ["", f"[{'.'.join(path)}]"]
    lines += [f"{key} = {_toml_value(value)}" for key, value in scalars.items()]
    for key, value in table.items():
        if isinstance(value, dict):
            lines += _toml(value, (*path, key))
    return lines


def student_pyproject(instructor_text: str, repository: str) -> str:
    """The students' pyproject.toml: the course's base install (same pins, no extras), its
    `course` script, course_utils* as packages, and [project.urls] Repository set to `repository`."""
    instructor = tomllib.loads(instructor_text)
    project = instructor["project"]
    document = {
        "build-system": instructor["build-system"],
        "project": {
            **{key: project[key] for key in ("name", "version", "description", "readme", "requires-python",
                                             "dependencies") if key in project},
            "urls": {"Repository": f"https://github.com/{repository}"},
            "scripts": {"course": project.get("scripts", {}).get("course", "course_utils.cli:main")},
        },
        "tool": {"setuptools": {"packages": {"find": {"include": ["course_utils*"]}}}},
    }
    text = "\n".join(["# The students' install of Attention, Graded, made by `course publish` from the course's",
                      "# pyproject.toml: the same pinned dependencies, the `course` command.", *_toml(document)])
    text += "\n"
    if tomllib.loads(text) != document:  # the writer above knows only what this document holds
        raise CourseError("could not write the students' pyproject.toml")
    return text


def student_environment(instructor_text: str) -> str:
    """environment.yml for students: the course's, its instructors' header comment replaced."""
    lines = instructor_text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    return STUDENT_ENVIRONMENT_HEADER + "".join(lines[start:])


# ---- the students' README -------------------------------------------------------------------

STUDENT_README = """\
# Attention, Graded

[![Launch on Binder](https://mybinder.org/badge_logo.svg)]({binder})

An ordered series of Jupyter notebooks in which you build the Transformer of
*Attention Is All You Need* (Vaswani et al., 2017) yourself, piece by piece, in PyTorch.
Every exercise is graded automatically by [nbgrader](https://nbgrader.readthedocs.io):
visible tests teach while you work, hidden tests grade what you hand in.

## The notebooks

{released}

| # | notebook | what you build | points: visible tests + hidden tests |
|---|---|---|---|
{table}

## Install and open

With Python 3.11 (no conda needed), one command installs everything into `.venv/` with
pinned versions and opens the course in JupyterLab:

```bash
{install}
```

{install_cost}

Later, `.venv/bin/course lab` alone opens it again. It starts JupyterLab on `127.0.0.1:8888`
(`--port` picks another), opens `{folder}/` in your browser (`--no-browser` prints the link
instead) and makes no network request of its own.

- **Without installing anything:** the **launch binder** badge at the top opens the course in
  JupyterLab on [mybinder.org](https://mybinder.org) (CPU only; your work there is lost when the
  session ends, so download your notebooks before you leave).
- **With conda instead of pip:** `conda env create -f environment.yml`, then
  `conda activate attention-graded` and `course lab` (the same pins, with torch's CPU build).

## How to work

1. Work through the notebooks in order. Each one starts with *what you will build* and ends
   with *what you learned*.
2. **Answer cells:** replace each `raise NotImplementedError(...)` with your code. Keep the
   names and signatures: the tests call them. Leave the locked cells (setup, explanations,
   tests, provided code) as they are.
3. **Visible test cells:** run the test cell under each answer. Its messages say which
   property failed and why ("weights must sum to 1 over the keys"), never the numbers to copy.
4. **Validate:** press **Validate** in the notebook toolbar, or run
   `.venv/bin/course validate {example}`.
   It restarts the kernel and runs everything in order, as the grader will, and names the
   test cells that fail.
5. Hand the notebook in (next section) once Validate reports no failing test.

The `parameters` cell at the top of each notebook holds `device` (`auto` picks CUDA, then
Apple MPS, then CPU), `fast` (`"auto"`: small sizes and short training on a CPU, the full sizes
on a CUDA GPU; the setup cell prints which, and `True` or `False` chooses) and `seed`. Graded
runs always use fast mode.

## Hand in

What you hand in is the notebook file itself, with its name unchanged, one file per
notebook, after **Validate** reports no failing test: `{folder}/NN_name/NN_name.ipynb`, for
example `{example}`.
The grader finds your work by that file name and runs the file from a fresh kernel, so hand in
the `.ipynb`, not a PDF, an HTML export, a zip or a renamed copy, and keep its locked cells as
they are.

- **On a JupyterHub with nbgrader's exchange** (your instructor gives you the hub's address):
  open **Nbgrader → Assignment List** (the *Assignments* tab), **Fetch** the notebook there and
  work in the copy it fetches into your home folder (`NN_name/NN_name.ipynb`). When Validate
  passes, press **Submit** next to it in the same tab. You may submit again before the
  deadline; the instructor collects your latest submission.
- **On a learning platform** (Moodle, Canvas, ...): upload the `.ipynb` file itself, its name
  unchanged, to that notebook's assignment: one upload per assignment. In JupyterLab,
  right-click the notebook in the file browser and choose **Download** to get the file (on
  Binder, do this before the session ends).
- **Self-study, without an instructor:** there is nothing to hand in. Run each test cell, then
  **Validate** (or `course validate` as above): a notebook is done when Validate reports no
  failing test. The hidden tests are not in this copy, so that is a good sign rather than a
  grade.

`course lab` shows the *Assignments* tab only where an nbgrader exchange is configured (on a
hub); on your own machine there is none, so JupyterLab shows no *Assignments* tab and no
Nbgrader menu, and the Validate button works as everywhere.

## How grading works

- **Hidden tests run at grading.** Your notebook is run from a fresh kernel, in a sandbox with
  time and memory limits, with its visible test cells and with hidden tests that try other
  sizes, dtypes and edge cases. Each visible test cell is worth 1 point and each hidden test
  cell more (the table above gives the totals): passing the visible tests is the start, not
  the whole grade.
- **A deadline per notebook.** Later notebooks build on earlier ones: they start with the
  reference answers of the earlier exercises as locked, *provided* cells, so that one bug
  cannot sink every later notebook. A later notebook therefore shows the answers to earlier
  ones, which is why notebooks are released one at a time, each after the deadline of the
  ones before it.

## What is here

```
{folder}/      the notebooks, one folder each
course_utils/   the `course` command (`course lab`, `course validate`) and the helpers the notebooks import
nbgrader_config.py, pyproject.toml, environment.yml (what Binder builds)
```
"""


def _descriptions(course: Course) -> dict[str, str]:
    """{id: what you build}, from the table of the course's own README."""
    readme = course.root / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    rows = re.findall(r"^\| \d\d \| `(\d\d_\w+)` \| (.+?) \|$", text, flags=re.MULTILINE)
    return {aid: what.strip() for aid, what in rows}


def _points(course: Course, aid: str) -> str:
    """"V + H" points of one notebook's visible and hidden test cells ("not graded" when none)."""
    visible = hidden = 0.0
    for cell in read(course.solution(aid)).cells:
        meta = nbgrader_meta(cell)
        if meta.get("grade") and not meta.get("solution"):
            if MARKERS[2] in cell.source:
                hidden += meta.get("points", 0)
            else:
                visible += meta.get("points", 0)
    return f"{visible:g} + {hidden:g}" if visible or hidden else "not graded"


def _title(notebook: Path) -> str:
    for cell in read(notebook).cells:
        for line in cell.source.splitlines():
            if cell.cell_type == "markdown" and line.startswith("# "):
                return line[2:].strip()
    return ""


def student_readme(course: Course, published: list[str], repository: str, folder: str = "notebooks") -> str:
    """The students' README.md: the course, its published notebooks, install, work and grading."""
    descriptions = _descriptions(course)
    rows = [f"| {aid[:2]} | `{aid}` | {descriptions.get(aid) or _title(course.release(aid))} | {_points(course, aid)} |"
            for aid in published]
    graded = [aid for aid in published if _points(course, aid) != "not graded"]
    example = graded[0] if graded else published[0]
    if published == course.ids():
        released = f"All {len(published)} notebooks are released."
    else:
        released = (f"Released so far: notebooks {published[0][:2]} to {published[-1][:2]}. The next notebook "
                    "comes after the deadline of the last one (see *How grading works*).")
    return STUDENT_README.format(binder=binder_url(repository, folder), released=released, table="\n".join(rows),
                                 install=INSTALL_COMMAND, install_cost=INSTALL_COST, folder=folder, example=f"{folder}/{example}/{example}.ipynb")
