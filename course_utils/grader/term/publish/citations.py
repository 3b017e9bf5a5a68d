"""What the published notebooks cite (relative links, `docs/...` paths): the copy carries each cited file,
and `course publish` stops where a citation would point at nothing.
"""
from __future__ import annotations

import os
import re
import shutil
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from course_utils.course import Course
from course_utils.ipynb import read


# Course-root folders whose files a notebook may cite (`docs/recorded-runs.md`): the copy carries
# each file cited, and what a cited markdown file links to in turn.
CITED_FOLDERS = ("docs",)

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
