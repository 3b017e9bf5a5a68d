"""`course export` and its nbgrader exporter plugin: a Canvas gradebook CSV from the gradebook."""
import csv
import datetime
import os
import sys

import pytest

from conftest import run_course
from course_utils.grader.term.export import (CANVAS_COLUMNS, POINTS_ROW, CanvasExportPlugin, CheckedCsvExportPlugin, NoGrades,
                                        final_score)
from course_utils.grader.engine.gradebook import opened


@pytest.fixture(autouse=True)
def _alembic_on_path(monkeypatch):
    """nbgrader runs `alembic` by name when it makes a gradebook: this environment's."""
    monkeypatch.setenv("PATH", os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))


def _gradebook(root):
    """A gradebook with two assignments, a late and a missing submission, and a manual grade."""
    due = datetime.datetime(2026, 11, 1, 12, 0)
    with opened(f"sqlite:///{root / 'gradebook.db'}", "attention-graded") as gb:
        for aid, points in (("01_a", 4.0), ("02_b", 6.0)):
            gb.add_assignment(aid, duedate=due)
            gb.add_notebook(aid, aid)
            gb.add_grade_cell("test_1", aid, aid, max_score=points, cell_type="code")
        gb.add_student("ana", first_name="Ana", last_name="Lima")
        gb.add_student("ben")
        ana = gb.add_submission("01_a", "ana", timestamp=due - datetime.timedelta(hours=1))
        ana.notebooks[0].grades[0].auto_score = 3.0
        ben = gb.add_submission("01_a", "ben", timestamp=due + datetime.timedelta(hours=1))
        ben.notebooks[0].grades[0].auto_score = 4.0
        ben.notebooks[0].late_submission_penalty = 1.5
        late = gb.add_submission("02_b", "ana", timestamp=due)
        late.notebooks[0].grades[0].auto_score = 2.0
        late.notebooks[0].grades[0].manual_score = 5.0  # a grader's correction wins
        gb.db.commit()
    return f"sqlite:///{root / 'gradebook.db'}"


def _read(path):
    with open(path, newline="") as handle:
        return list(csv.reader(handle))


def test_late_penalties_count_and_never_go_below_zero():
    assert final_score(4.0, 1.5) == 2.5
    assert final_score(4.0, None) == 4.0
    assert final_score(1.0, 3.0) == 0.0


def test_canvas_csv_has_every_student_every_assignment_and_the_points(tmp_path):
    url = _gradebook(tmp_path)
    plugin = CanvasExportPlugin(to=str(tmp_path / "canvas.csv"))
    with opened(url, "attention-graded") as gb:
        plugin.export(gb)
    header, points, *students = _read(tmp_path / "canvas.csv")
    assert header == CANVAS_COLUMNS + ["01_a", "02_b"]
    assert points[0] == POINTS_ROW and points[-2:] == ["4", "6"]
    by_login = {row[3]: row for row in students}
    assert by_login["ana"][0] == "Lima, Ana" and by_login["ana"][-2:] == ["3", "5"]
    assert by_login["ben"][0] == "ben" and by_login["ben"][-2:] == ["2.5", "0"], "late penalty; nothing handed in"


def test_a_held_submission_is_left_empty_until_someone_unflags_it(tmp_path):
    url = _gradebook(tmp_path)
    with opened(url, "attention-graded") as gb:
        gb.find_submission("01_a", "ana").notebooks[0].flagged = True  # as `course autograde` holds one
        gb.db.commit()
        CanvasExportPlugin(to=str(tmp_path / "held.csv")).export(gb)
        gb.find_submission("01_a", "ana").notebooks[0].flagged = False  # a person looked, and unflagged it
        gb.db.commit()
        CanvasExportPlugin(to=str(tmp_path / "released.csv")).export(gb)
    held = {row[3]: row for row in _read(tmp_path / "held.csv")[2:]}
    released = {row[3]: row for row in _read(tmp_path / "released.csv")[2:]}
    assert held["ana"][-2:] == ["", "5"] and released["ana"][-2:] == ["3", "5"]


@pytest.mark.slow
def test_course_export_runs_nbgraders_exporter_with_the_plugin(tmp_path):
    (tmp_path / "solutions").mkdir()
    (tmp_path / "nbgrader_config.py").write_text(
        'c = get_config()\nc.CourseDirectory.course_id = "attention-graded"\n'
        f'c.CourseDirectory.db_url = "sqlite:///{tmp_path / "gradebook.db"}"\n')
    url = _gradebook(tmp_path)
    with opened(url, "attention-graded") as gb:
        gb.find_submission("01_a", "ben").notebooks[0].flagged = True
        gb.db.commit()
    done = run_course("export", "--student", "ben", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Held for review, left empty: ben, 01_a" in done.stdout, "the instructor is told what was left out"
    header, _, *rows = _read(tmp_path / "reports" / "canvas.csv")
    assert [row[3] for row in rows] == ["ben"] and header[-2:] == ["01_a", "02_b"]
    nbgrader_csv = run_course("export", "--format", "nbgrader", cwd=tmp_path)
    assert nbgrader_csv.returncode == 0, nbgrader_csv.stdout + nbgrader_csv.stderr
    assert "late_submission_penalty" in (tmp_path / "reports" / "nbgrader.csv").read_text()


def test_a_missing_student_gets_the_configured_value_and_an_assignment_nobody_handed_in_is_left_out(tmp_path):
    url = _gradebook(tmp_path)
    with opened(url, "attention-graded") as gb:
        gb.add_assignment("03_c")
        gb.add_notebook("03_c", "03_c")
        gb.add_grade_cell("test_1", "03_c", "03_c", max_score=2.0, cell_type="code")
        gb.db.commit()
        CanvasExportPlugin(to=str(tmp_path / "zero.csv")).export(gb)
        CanvasExportPlugin(to=str(tmp_path / "blank.csv"), missing="").export(gb)
    zero, blank = _read(tmp_path / "zero.csv"), _read(tmp_path / "blank.csv")
    assert zero[0][-2:] == blank[0][-2:] == ["01_a", "02_b"], "03_c, which nobody handed in, is left out"
    assert {row[3]: row[-1] for row in zero[2:]} == {"ana": "5", "ben": "0"}
    assert {row[3]: row[-1] for row in blank[2:]} == {"ana": "5", "ben": ""}


def test_a_gradebook_without_submissions_is_refused_by_both_formats(tmp_path):
    with opened(f"sqlite:///{tmp_path / 'gradebook.db'}", "attention-graded") as gb:
        gb.add_assignment("01_a")
        gb.add_student("ana")
        for plugin in (CanvasExportPlugin, CheckedCsvExportPlugin):
            with pytest.raises(NoGrades, match=r"holds no submission of any assignment.*--db-url"):
                plugin(to=str(tmp_path / "out.csv")).export(gb)
    assert not (tmp_path / "out.csv").exists()


def _course(root):
    (root / "solutions").mkdir()
    (root / "nbgrader_config.py").write_text(
        'c = get_config()\nc.CourseDirectory.course_id = "attention-graded"\n'
        f'c.CourseDirectory.db_url = "sqlite:///{root / "gradebook.db"}"\n')


@pytest.mark.slow
def test_course_export_fails_loudly_on_an_empty_gradebook(tmp_path):
    _course(tmp_path)
    done = run_course("export", cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "No grades to export" in done.stderr and "course autograde" in done.stderr and "--db-url" in done.stderr
    assert not (tmp_path / "reports" / "canvas.csv").exists()


@pytest.mark.slow
def test_missing_is_zero_or_blank_from_the_config_or_the_option(tmp_path):
    _course(tmp_path)
    _gradebook(tmp_path)
    with (tmp_path / "nbgrader_config.py").open("a") as config:
        config.write('c.CanvasExportPlugin.missing = ""\n')
    from_config = run_course("export", "--to", tmp_path / "config.csv", cwd=tmp_path)
    option = run_course("export", "--missing", "zero", "--to", tmp_path / "option.csv", cwd=tmp_path)
    assert from_config.returncode == option.returncode == 0, from_config.stderr + option.stderr
    assert {row[3]: row[-1] for row in _read(tmp_path / "config.csv")[2:]} == {"ana": "5", "ben": ""}
    assert {row[3]: row[-1] for row in _read(tmp_path / "option.csv")[2:]} == {"ana": "5", "ben": "0"}
