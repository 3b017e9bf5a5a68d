"""`course publish`: the students' copy of the course, the public repository that Binder launches.

For instructors. The course root holds every answer and every hidden test (solutions/), so
students get a copy made for them: the released notebooks up to the one whose deadline is
next, the students' part of course_utils (the kernel's helpers, `course validate` and `course
lab`), nbgrader_config.py and environment.yml as they are, and a pyproject.toml and README.md
written for students. Later notebooks carry the reference answers of earlier ones in locked,
provided cells, so notebooks are published one deadline at a time (`upto`), never all at the
start of term.

The copy is built in a staging folder and scanned, file by file, for any line of any answer
and any hidden test of the whole course (`leaks.scan`); only a clean copy is moved into place (and,
with `git`, committed as the one commit of a fresh repository: never the instructor's history).
What the copy holds besides the notebooks is `student_copy`'s; what notebooks cite, `citations`'.

It imports `course_utils.course`, `course_utils.ipynb` and the grader's release check, and
nothing of QA, benchmarks or the CLI (tests/test_layout.py keeps it so).
"""

import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from course_utils.course import PUBLISHED_MARKER, VALIDATE_EXTENSION, Course, CourseError

from course_utils.grader.term.publish.citations import (CITED_FOLDERS, Citation, _copy_cited, citations,
                                                        missing_citations)
from course_utils.grader.term.publish.leaks import (MARKERS, Leak, LeakError, ScanResult, Secrets, course_secrets, scan,
                                                    trivial)
from course_utils.grader.term.publish.student_copy import (COPIED_FILES, INSTALL_COMMAND, INSTALL_COST,
                                                           STUDENT_GITIGNORE, binder_url, repository_of,
                                                           student_environment, student_modules, student_pyproject,
                                                           student_readme)

__all__ = ["CITED_FOLDERS", "INSTALL_COMMAND", "INSTALL_COST", "MARKERS", "Citation", "Leak", "LeakError",
           "PublishReport", "ScanResult", "Secrets", "binder_url", "citations", "course_secrets",
           "missing_citations", "publish", "repository_of", "scan", "student_environment", "student_modules",
           "student_pyproject", "student_readme", "trivial"]

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
