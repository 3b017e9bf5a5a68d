"""`course publish`: the students' copy of the course, the public repository that Binder launches.

For instructors. The course root holds every answer and every hidden test (solutions/), so
students get a copy made for them: the released notebooks up to the one whose deadline is
next, the students' part of course_utils (the kernel's helpers, `course validate` and `course
lab`), nbgrader_config.py and environment.yml as they are, and a pyproject.toml and README.md
written for students. Later notebooks carry the reference answers of earlier ones in locked,
provided cells, so notebooks are published one deadline at a time (`upto`), never all at the
start of term.

The copy is built in a staging folder and scanned, file by file, for any line of any answer
and any hidden test of the whole course (`scan`); only a clean copy is moved into place (and,
with `git`, committed as the one commit of a fresh repository: never the instructor's history).

It imports `course_utils.course`, `course_utils.ipynb` and the grader's release check, and
nothing of QA, benchmarks or the CLI (tests/test_layout.py keeps it so).
"""
from __future__ import annotations

import ast
import json
import keyword
import os
import re
import shutil
import subprocess
import tempfile
import tomllib
import urllib.parse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from course_utils.course import NOTEBOOK_ID, PUBLISHED_MARKER, VALIDATE_EXTENSION, Course, CourseError
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
# Course-root folders whose files a notebook may cite (`docs/recorded-runs.md`): the copy carries
# each file cited, and what a cited markdown file links to in turn.
CITED_FOLDERS = ("docs",)
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

# nbgrader's delimiters: a published notebook in which one of these survives holds a solution or
# a hidden test. (Code may name them: course_utils/notebook/progress.py strips hidden blocks.)
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS")


# ---- what must not reach students -----------------------------------------------------------

_WORDS = re.compile(r"[A-Za-z_]\w*|\d+")
# Words that tell nothing about an answer or a test: Python's keywords, `self`/`cls`, and the
# names any PyTorch code spells out (the library, its usual aliases).
_COMMON_WORDS = frozenset(keyword.kwlist) | {"self", "cls", "torch", "nn", "F", "np", "math", "cuda"}
# Arithmetic, comparison, indexing, slicing: a line with one of these computes something.
_COMPUTES = re.compile(r"[-+*/%@<>!&|^~\[]|==")
MIN_WORDS = 3          # a code line needs this many other words or numbers to be evidence
MIN_COMMENT_WORDS = 4  # a comment needs this many words
SUBSTRING_MIN = 30     # secret lines this long are also found inside longer lines (comments, strings)


def trivial(line: str) -> bool:
    """True when `line` (an answer's or a hidden test's) says nothing of either, so finding it proves no leak.

    Why: the scan looks for every line of every answer and hidden test, and many of those
    lines are ones anybody writes who has read the exercise's signature: `)`, `else:`,
    `return x`, `return k, v`, `super().__init__()`, `with torch.no_grad():`, or
    `if torch.cuda.is_available():`, which course_utils/notebook/device.py holds too. Counting
    them would stop every publish for nothing. So a code line is trivial when, leaving out
    Python's keywords (None and True too), `self`/`cls` and the library names (torch, nn, F,
    np, math, cuda), it has fewer than MIN_WORDS words and numbers, and computes nothing: no
    arithmetic, comparison, indexing or slicing (`return (tokens != pad_id)[:, None, None, :]`
    is a whole answer in two words). A comment is trivial with fewer than MIN_COMMENT_WORDS
    words (`# shape check`). Words inside strings count, so a test's message is never trivial.
    What is left names the exercise's own variables and operations (`output = weights @ value`),
    and every answer and every hidden test of the course has such lines
    (tests/grader/test_publish.py checks it): a copied answer or test is still found.
    """
    stripped = line.strip()
    if stripped.startswith("#"):
        return len(_WORDS.findall(stripped)) < MIN_COMMENT_WORDS
    words = [w for w in _WORDS.findall(stripped) if w not in _COMMON_WORDS]
    return len(words) < MIN_WORDS and not (words and _COMPUTES.search(stripped))


def _between(source: str, begin: str, end: str) -> tuple[list[str], list[str]]:
    """(lines between the `begin`/`end` marker lines, the other lines), markers left out."""
    inside, within, outside = False, [], []
    for line in source.splitlines():
        if begin in line:
            inside = True
        elif end in line:
            inside = False
        else:
            (within if inside else outside).append(line)
    return within, outside


@dataclass
class Secrets:
    """Every answer and hidden-test line of the course (non-trivial, stripped), and what students see anyway.

    `answers` maps a line to the exercises `(id, grade_id)` whose answer holds it and `hidden`
    to the notebooks whose hidden tests hold it, for every notebook of the course, published or
    not. `public` holds the lines the published notebooks show outside answers, hidden tests and
    provided cells (a signature, a visible test that a hidden test repeats): those prove nothing.
    """
    answers: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    hidden: dict[str, set[str]] = field(default_factory=dict)
    public: set[str] = field(default_factory=set)

    def origin(self, line: str) -> str | None:
        """Whose secret `line` is, in words (None when it is nobody's or public)."""
        if line in self.public:
            return None
        if line in self.answers:
            return "the answer to " + ", ".join(f"{aid}/{gid}" for aid, gid in sorted(self.answers[line]))
        if line in self.hidden:
            return "the hidden tests of " + ", ".join(sorted(self.hidden[line]))
        return None

    def answer_lines(self, aid: str, grade_id: str) -> set[str]:
        """The (non-trivial) lines of one exercise's answer."""
        return {line for line, owners in self.answers.items() if (aid, grade_id) in owners}

    def long_lines(self) -> list[str]:
        """Secret lines long enough to be looked for inside other lines too."""
        return [line for line in (*self.answers, *self.hidden)
                if len(line) >= SUBSTRING_MIN and line not in self.public]


def course_secrets(course: Course, published: Iterable[str]) -> Secrets:
    """The Secrets of `course`: answers and hidden tests of all its notebooks, public lines of `published`."""
    published = set(published)
    secrets = Secrets()
    for aid in course.ids():
        for cell in read(course.solution(aid)).cells:
            meta = nbgrader_meta(cell)
            answer, rest = [], cell.source.splitlines()
            if meta.get("solution"):
                # nbgrader replaces a solution cell without delimiters whole.
                answer, rest = _between(cell.source, *MARKERS[:2]) if MARKERS[0] in cell.source else (rest, [])
            hidden, rest = _between("\n".join(rest), *MARKERS[2:])
            for line in map(str.strip, answer):
                if line and not trivial(line):
                    secrets.answers.setdefault(line, set()).add((aid, meta.get("grade_id", "")))
            for line in map(str.strip, hidden):
                if line and not trivial(line):
                    secrets.hidden.setdefault(line, set()).add(aid)
            if aid in published and "provided_from" not in cell.metadata.get("course", {}):
                secrets.public.update(line.strip() for line in rest)
    return secrets


# ---- the scan -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Leak:
    """One line of the copy that belongs to an answer or a hidden test."""
    path: str    # relative to the copy
    where: str   # "line 12", "cell 7, line 3"
    line: str
    origin: str  # "the answer to 03_multi_head_attention/split_heads", ...

    def __str__(self) -> str:
        return f"{self.path} ({self.where}): {self.line[:100]!r} is a line of {self.origin}"


@dataclass
class ScanResult:
    """What `scan` read and found."""
    leaks: list[Leak] = field(default_factory=list)
    lines: int = 0     # lines read
    provided: int = 0  # lines of earlier answers in later notebooks' provided cells (as intended)


class LeakError(CourseError):
    """The copy holds a line of an answer or of a hidden test; nothing was published."""

    def __init__(self, leaks: list[Leak]) -> None:
        self.leaks = leaks
        shown = "\n".join(f"  - {leak}" for leak in leaks[:20])
        more = f"\n  ... and {len(leaks) - 20} more" if len(leaks) > 20 else ""
        super().__init__(f"the students' copy would give away {len(leaks)} line(s) of answers or hidden tests; "
                         f"nothing was published:\n{shown}{more}")


def _strings(value: object) -> Iterator[str]:
    """Every string inside a JSON value (outputs, metadata, attachments)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


class _Scanner:
    def __init__(self, secrets: Secrets, published: list[str]) -> None:
        self.secrets = secrets
        self.published = published
        self.long = secrets.long_lines()
        self.result = ScanResult()

    def allowance(self, cell: dict, aid: str | None) -> set[str]:
        """The answer lines a provided cell of notebook `aid` may hold: those of the earlier exercise it names."""
        origin = (cell.get("metadata", {}).get("course") or {}).get("provided_from")
        if not origin or aid not in self.published or "/" not in str(origin):
            return set()
        source_id, grade_id = str(origin).split("/", 1)
        if source_id not in self.published or self.published.index(source_id) >= self.published.index(aid):
            return set()  # only answers of earlier, published notebooks; never the notebook's own
        return self.secrets.answer_lines(source_id, grade_id)

    def segment(self, text: str, path: str, where: str, allowed: set[str] = frozenset(),
                notebook: bool = False) -> None:
        candidates = [s for s in self.long if s in text and s not in allowed]
        markers = [m for m in MARKERS if m in text] if notebook else []
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            self.result.lines += 1
            if not line or line in self.secrets.public:
                continue
            if line in allowed:
                self.result.provided += 1
                continue
            origin = self.secrets.origin(line)
            if origin is None:
                origin = next((self.secrets.origin(s) for s in candidates if s in line), None)
            if origin is None and any(m in line for m in markers):
                origin = "nbgrader's solution or hidden-test delimiters"
            if origin is not None:
                self.result.leaks.append(Leak(path, f"{where}line {number}", line, origin))

    def file(self, path: Path, rel: str) -> None:
        text = path.read_bytes().decode("utf-8", errors="replace")
        notebook = None
        if path.suffix == ".ipynb":
            try:
                notebook = json.loads(text)
            except ValueError:
                notebook = None
        if not isinstance(notebook, dict):
            self.segment(text, rel, "")
            return
        # notebooks/<id>/<id>.ipynb is notebook <id>: its provided cells may hold earlier answers.
        aid = path.stem if path.parent.name == path.stem and NOTEBOOK_ID.match(path.stem) else None
        for index, cell in enumerate(notebook.get("cells", [])):
            if not isinstance(cell, dict):
                continue
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else str(source)
            self.segment(source, rel, f"cell {index}, ", self.allowance(cell, aid), notebook=True)
            rest = {key: value for key, value in cell.items() if key != "source"}
            self.segment("\n".join(_strings(rest)), rel, f"cell {index} outputs/metadata, ", notebook=True)
        rest = {key: value for key, value in notebook.items() if key != "cells"}
        self.segment("\n".join(_strings(rest)), rel, "notebook metadata, ", notebook=True)


def scan(folder: str | Path, secrets: Secrets, published: list[str]) -> ScanResult:
    """Read every file under `folder` (but .git/) for lines of answers and hidden tests.

    A line found is a leak unless the published notebooks show it anyway (`secrets.public`),
    or it lies in a provided cell of a published notebook and belongs to the answer that cell
    names, of an earlier published notebook (that is what provided cells are for). Notebooks
    are read cell by cell, outputs and metadata included, and must hold no nbgrader delimiter;
    other files line by line, as text.
    """
    folder = Path(folder)
    scanner = _Scanner(secrets, list(published))
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder)
        if path.is_file() and ".git" not in rel.parts:
            scanner.file(path, rel.as_posix())
    return scanner.result


# ---- what the notebooks cite ----------------------------------------------------------------

# A markdown link's or image's target: [text](target), ![alt](target).
_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)")
# A path of the course root written out in prose, a table or a comment: `docs/recorded-runs.md`.
_ROOT_PATH = re.compile(r"(?<![\w./-])((?:" + "|".join(CITED_FOLDERS) + r")/[\w./-]*\w)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")  # https:, mailto:, attachment:, data:


@dataclass(frozen=True)
class Citation:
    """One path a file of the copy names: a relative link, or a course-root path in its text."""
    source: str  # the citing file, relative to the root
    text: str    # as written
    target: str  # the file or folder it names, relative to the root ("../x" when outside it)

    def __str__(self) -> str:
        return f"{self.source} cites {self.text}"


def _target(root: Path, base: Path, text: str) -> str:
    path = os.path.normpath(os.path.join(base, urllib.parse.unquote(text)))
    return Path(os.path.relpath(path, root)).as_posix()


def citations(path: str | Path, root: str | Path) -> list[Citation]:
    """The paths that `path` (a notebook or a markdown file under `root`) cites.

    Relative links of markdown (a notebook's markdown cells), resolved from the file's folder,
    and course-root paths under CITED_FOLDERS written out anywhere (`docs/recorded-runs.md` in
    a sentence or a code comment), resolved from `root`. Links with a scheme (https:,
    attachment:), to an anchor of the same page (#...) or absolute ones cite nothing here.
    """
    path, root = Path(path), Path(root)
    rel = path.relative_to(root).as_posix()
    if path.suffix == ".ipynb":
        texts = [(cell.source, cell.cell_type == "markdown") for cell in read(path).cells]
    else:
        texts = [(path.read_text(encoding="utf-8"), path.suffix == ".md")]
    found = []
    for text, markdown in texts:
        for link in _LINK.findall(text) if markdown else ():
            link = link.split("#", 1)[0].split("?", 1)[0]
            if link and not _SCHEME.match(link) and not link.startswith("/"):
                found.append(Citation(rel, link, _target(root, path.parent, link)))
        found.extend(Citation(rel, mention, _target(root, root, mention)) for mention in _ROOT_PATH.findall(text))
    return list(dict.fromkeys(found))


def _copy_cited(course: Course, folder: Path, notebooks: list[Path]) -> None:
    """Copy into `folder` the course's files under CITED_FOLDERS that `notebooks` (in `folder`) cite,
    and what those files cite in turn (docs/recorded-runs.md links to docs/gpu-runs.md). The scan
    then reads them like every other file of the copy."""
    root = course.root.resolve()
    todo = [c for notebook in notebooks for c in citations(notebook, folder)]
    while todo:
        target = todo.pop().target
        source, copy = root / target, folder / target
        if copy.exists() or target.split("/")[0] not in CITED_FOLDERS or not source.exists():
            continue
        if source.is_dir():
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".*"))
            continue
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, copy)
        if copy.suffix == ".md":
            todo.extend(citations(copy, folder))


def missing_citations(folder: str | Path, unpublished: Iterable[str] = ()) -> list[Citation]:
    """What the notebooks of the copy in `folder`, and the files they cite, cite but the copy lacks.

    `unpublished`: folders of the copy (relative, e.g. notebooks/05_positional_encoding) of
    notebooks not published yet; a "Next:" link into one of them is expected to wait for its
    release and is not counted.
    """
    folder = Path(folder)
    waiting = tuple(f"{name.rstrip('/')}/" for name in unpublished)
    todo = [c for nb in sorted(folder.rglob("*.ipynb")) if ".ipynb_checkpoints" not in nb.parts
            for c in citations(nb, folder)]
    seen, missing = set(), []
    while todo:
        citation = todo.pop(0)
        if citation in seen:
            continue
        seen.add(citation)
        target = folder / citation.target
        if not target.exists():
            if not citation.target.startswith(waiting):
                missing.append(citation)
        elif target.suffix == ".md" and target.is_file():
            todo.extend(citations(target, folder))
    return missing


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


# ---- publishing -----------------------------------------------------------------------------

@dataclass(frozen=True)
class PublishReport:
    """What `publish` made."""
    dest: Path
    ids: tuple[str, ...]       # the notebooks published, in course order
    repository: str            # OWNER/NAME the README's Binder badge launches
    binder_url: str
    files: tuple[str, ...]     # every file of the copy (relative; .git/ left out)
    lines_scanned: int
    provided_lines: int        # earlier answers in provided cells of later notebooks, as intended
    commit: str | None         # with git=True: the one commit of the fresh repository
    kept_history: bool         # --force without --git kept the previous publish's .git/


def _check_destination(course: Course, dest: Path, force: bool) -> bool:
    """Refuse a destination inside (or holding) the course, or one that is not empty unless it is
    a previous publish and `force`; True when a previous publish is to be replaced."""
    root = course.root.resolve()
    if dest == root or root in dest.parents:
        raise CourseError(f"{dest} is inside the course ({root}): publish outside it, "
                          f"e.g. `course publish {root.parent / (root.name + '-student')}`.")
    if dest in root.parents:
        raise CourseError(f"{dest} holds the course ({root}): publish into a folder of its own.")
    if not dest.exists():
        return False
    if not dest.is_dir():
        raise CourseError(f"{dest} exists and is not a folder.")
    if not any(dest.iterdir()):
        return False
    if not force:
        raise CourseError(f"{dest} is not empty: publish into a new or empty folder, or pass --force "
                          "to replace a previous `course publish` there.")
    if not (dest / PUBLISHED_MARKER).is_file():
        raise CourseError(f"{dest} does not look like a previous `course publish` (it has no {PUBLISHED_MARKER}); "
                          "--force replaces only those. Pick another folder.")
    return True


def _write(course: Course, folder: Path, published: list[str], repository: str, release_folder: str) -> None:
    ignore = shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__")
    for aid in published:
        shutil.copytree(course.release(aid).parent, folder / release_folder / aid, ignore=ignore)
    package = course.root / "course_utils"
    for rel in student_modules(package):
        target = folder / "course_utils" / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(package / rel, target)
    for name in COPIED_FILES:
        shutil.copy2(course.root / name, folder / name)
    _copy_cited(course, folder, [folder / release_folder / aid / f"{aid}.ipynb" for aid in published])
    text = {
        "pyproject.toml": student_pyproject((course.root / "pyproject.toml").read_text(encoding="utf-8"), repository),
        "environment.yml": student_environment((course.root / "environment.yml").read_text(encoding="utf-8")),
        "README.md": student_readme(course, published, repository, release_folder),
        ".gitignore": STUDENT_GITIGNORE,
        # Binder (repo2docker) runs `postBuild` after the install: JupyterLab's Validate button
        # then answers with the course's validator, as under `course lab`.
        "postBuild": f"#!/bin/bash\nset -e\njupyter server extension enable --sys-prefix {VALIDATE_EXTENSION}\n",
        PUBLISHED_MARKER: json.dumps({"made_by": "course publish", "course": course.course_id,
                                      "notebooks": published, "repository": repository}, indent=2) + "\n",
    }
    for name, content in text.items():
        (folder / name).write_text(content, encoding="utf-8")
    (folder / "postBuild").chmod(0o755)


def _git(folder: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise CourseError(f"`git {' '.join(args)}` failed in {folder}: {done.stderr.strip()}")
    return done.stdout.strip()


def _commit(folder: Path, message: str) -> str:
    """Make `folder` a fresh repository (branch main) with one commit of all of it; return the commit."""
    if shutil.which("git") is None:
        raise CourseError("--git needs git on PATH.")
    _git(folder, "init", "-q", "-b", "main")
    identity = []
    configured = subprocess.run(["git", "-C", str(folder), "config", "user.email"], capture_output=True, check=False)
    if configured.returncode != 0:
        identity = ["-c", "user.name=course publish", "-c", "user.email=course-publish@localhost"]
    _git(folder, "add", "-A")
    _git(folder, *identity, "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", message)
    return _git(folder, "rev-parse", "HEAD")


def publish(course: Course, dest: str | Path, upto: str | None = None, git: bool = False,
            repository: str | None = None, force: bool = False) -> PublishReport:
    """Write the students' copy of `course` into `dest` (new or empty; a previous publish with `force`).

    `upto`: the last notebook to publish (an id or its two digits; None: all). Later notebooks'
    provided cells hold earlier answers: publish a notebook only once the deadlines of the ones
    before it have passed. `git`: make `dest` a fresh repository with one commit. `repository`:
    OWNER/NAME on GitHub for the README's Binder badge and pyproject's Repository (None: the
    course's own [project.urls] Repository). The release folder must be in sync with the
    solutions (`course generate --check`); the copy is scanned before it is moved into place, so
    a refusal or a leak leaves `dest` as it was.
    """
    ids = course.ids()
    last = course.select([upto])[0] if upto else ids[-1]
    published = ids[: ids.index(last) + 1]
    repository = repository_of(course, repository)
    dest = Path(dest).expanduser().resolve()
    replace = _check_destination(course, dest, force)

    from course_utils.grader.term import release

    stale = release.check(course, published)
    if stale:
        reasons = "\n".join(f"  - {aid}: " + "; ".join(why) for aid, why in stale.items())
        raise CourseError(f"the release folder is not what the solutions give for {', '.join(stale)}:\n{reasons}\n"
                          f"Run `course generate {' '.join(stale)}`, commit it, then publish again.")
    secrets = course_secrets(course, published)
    release_folder = Path(course.coursedir.release_directory).as_posix()

    dest.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.publishing-", dir=dest.parent))
    kept_history = False
    try:
        _write(course, staging, published, repository, release_folder)
        unpublished = [f"{release_folder}/{aid}" for aid in ids if aid not in published]
        missing = missing_citations(staging, unpublished)
        if missing:
            raise CourseError("the students' copy would lack what its notebooks cite; nothing was published:\n"
                              + "\n".join(f"  - {c}, which the copy lacks" for c in missing)
                              + f"\nPut the file under {' or '.join(d + '/' for d in CITED_FOLDERS)} of the course "
                              "(the copy carries what is cited there) or change the citation.")
        result = scan(staging, secrets, published)
        if result.leaks:
            raise LeakError(result.leaks)
        files = tuple(sorted(p.relative_to(staging).as_posix() for p in staging.rglob("*") if p.is_file()))
        what = f"notebook {published[0][:2]}" if len(published) == 1 else \
            f"notebooks {published[0][:2]} to {published[-1][:2]}"
        commit = _commit(staging, f"Attention, Graded: {what}") if git else None
        if replace:
            # Without --git, a previous publish's .git/ stays: the next release joins its history.
            kept_history = not git and (dest / ".git").is_dir()
            for child in dest.iterdir():
                if kept_history and child.name == ".git":
                    continue
                if child.is_dir() and not child.is_symlink():
                    shutil.rmtree(child)
                else:
                    child.unlink()
            for child in staging.iterdir():
                os.replace(child, dest / child.name)
        else:
            if dest.exists():
                dest.rmdir()  # empty
            os.replace(staging, dest)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return PublishReport(dest=dest, ids=tuple(published), repository=repository,
                         binder_url=binder_url(repository, release_folder), files=files,
                         lines_scanned=result.lines, provided_lines=result.provided, commit=commit,
                         kept_history=kept_history)
