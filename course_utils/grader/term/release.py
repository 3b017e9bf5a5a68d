"""`course generate`: make the student notebooks (the release folder) from the solutions with nbgrader."""
from __future__ import annotations

import filecmp
import json
import tempfile
from pathlib import Path

from course_utils.course import Course
from course_utils.grader.engine.nbgrader_runner import generate, make_scratch_root


def release(course: Course, ids: list[str]) -> list[str]:
    """Regenerate notebooks/<id>/ for each id (nbgrader also records it in the gradebook)."""
    for aid in ids:
        course.solution(aid)  # a clear error when the source notebook is missing
        generate(course, aid)
    return ids


def _same_notebook(a: Path, b: Path) -> bool:
    return json.loads(a.read_text()) == json.loads(b.read_text())


def differences(fresh: Path, committed: Path) -> list[str]:
    """Why the committed release folder differs from a fresh release ([] when in sync)."""
    if not committed.is_dir():
        return [f"{committed} does not exist"]
    reasons = []
    fresh_files = {p.relative_to(fresh) for p in fresh.rglob("*") if p.is_file()}
    committed_files = {p.relative_to(committed) for p in committed.rglob("*")
                       if p.is_file() and ".ipynb_checkpoints" not in p.parts}
    for rel in sorted(fresh_files - committed_files):
        reasons.append(f"{rel} is missing")
    for rel in sorted(committed_files - fresh_files):
        reasons.append(f"{rel} is not in the solutions")
    for rel in sorted(fresh_files & committed_files):
        a, b = fresh / rel, committed / rel
        same = _same_notebook(a, b) if rel.suffix == ".ipynb" else filecmp.cmp(a, b, shallow=False)
        if not same:
            reasons.append(f"{rel} differs from what solutions/ gives")
    return reasons


def check(course: Course, ids: list[str]) -> dict[str, list[str]]:
    """{id: [reasons]} for every id whose notebooks/ folder is not what a fresh release gives."""
    stale = {}
    with tempfile.TemporaryDirectory(prefix="course-release-check-") as tmp:
        scratch = make_scratch_root(course, tmp, ids)
        for aid in ids:
            generate(scratch, aid)
            reasons = differences(scratch.release(aid).parent, course.release(aid).parent)
            if reasons:
                stale[aid] = reasons
    return stale
