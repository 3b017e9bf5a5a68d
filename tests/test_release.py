"""notebooks/ is exactly what nbgrader makes of solutions/, and gives nothing away."""
import shutil

import nbformat
import pytest

from conftest import COURSE, IDS, ROOT, run_course
from course_utils.course import Course
from course_utils.ipynb import answer_cells, nbgrader_meta

HIDDEN = ("### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS")


@pytest.mark.slow
def test_release_is_in_sync():
    result = run_course("generate", "--check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "in sync" in result.stdout


@pytest.mark.slow
def test_release_check_names_a_stale_notebook(tmp_path):
    for name in ("solutions", "notebooks", "nbgrader_config.py"):
        source = ROOT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, tmp_path / name)
    aid = IDS[0]
    stale = Course(tmp_path).solution(aid)
    nb = nbformat.read(str(stale), as_version=4)
    nb.cells[0].source += "\n\nA sentence added after the last release."
    nbformat.write(nb, str(stale))
    result = run_course("generate", "--check", cwd=tmp_path)
    assert result.returncode == 1
    assert aid in result.stdout and f"course generate {aid}" in result.stdout

    fixed = run_course("generate", aid[:2], cwd=tmp_path)  # a two-digit prefix names the notebook
    assert fixed.returncode == 0 and f"released notebooks/{aid}/" in fixed.stdout
    old_name = run_course("release", "--check", cwd=tmp_path)  # the command's former name, with a note
    assert old_name.returncode == 0 and "is now `course generate`" in old_name.stderr


def _solution_lines(source):
    """The lines between the solution markers: what the release must not contain."""
    inside, lines = False, []
    for line in source.splitlines():
        if "### BEGIN SOLUTION" in line:
            inside = True
        elif "### END SOLUTION" in line:
            inside = False
        elif inside and len(line.strip()) > 12:
            lines.append(line.strip())
    return lines


def _hidden_lines(source):
    start, end = source.find(HIDDEN[0]), source.find(HIDDEN[1])
    return [ln.strip() for ln in source[start:end].splitlines()[1:] if len(ln.strip()) > 12]


@pytest.mark.parametrize("aid", IDS)
def test_release_holds_no_answer_and_no_hidden_test(aid):
    solution = nbformat.read(str(COURSE.solution(aid)), as_version=4)
    release = nbformat.read(str(COURSE.release(aid)), as_version=4)
    raw = COURSE.release(aid).read_text()
    for marker in ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"):
        assert marker not in raw
    released = {nbgrader_meta(c).get("grade_id"): c.source for c in release.cells if nbgrader_meta(c)}
    for cell in solution.cells:
        grade_id = nbgrader_meta(cell).get("grade_id")
        for line in _solution_lines(cell.source) + _hidden_lines(cell.source):
            assert line not in released.get(grade_id, ""), f"{grade_id} leaks: {line}"
    for grade_id, cell in answer_cells(release).items():
        if cell.cell_type == "code":
            assert "raise NotImplementedError" in cell.source, f"{grade_id} has no stub"


@pytest.mark.parametrize("aid", IDS)
def test_solution_folder_holds_only_the_notebook(aid):
    # Any other file in solutions/<id>/ would be copied into the student release.
    extra = [p.name for p in (ROOT / "solutions" / aid).iterdir()
             if p.name not in (f"{aid}.ipynb", ".ipynb_checkpoints")]
    assert not extra, f"these files would be released to students: {extra}"
