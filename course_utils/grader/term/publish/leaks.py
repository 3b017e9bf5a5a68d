"""What must not reach students: every line of the course's answers and hidden tests, and the scan that
finds one in a copy (`course publish` reads every file of the students' copy with it; the security tests
read graded notebooks and feedback pages with it).
"""
from __future__ import annotations

import json
import keyword
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from course_utils.course import NOTEBOOK_ID, Course, CourseError
from course_utils.ipynb import nbgrader_meta, read


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
