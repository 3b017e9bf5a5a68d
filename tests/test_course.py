"""Where a course lives: nbgrader's CourseDirectory names every path, and ids are checked."""
import pytest

from conftest import COURSE, IDS
from course_utils.course import Course, CourseError, find_root


def test_paths_follow_nbgraders_layout():
    aid = IDS[1]
    assert COURSE.solution(aid) == COURSE.root / "solutions" / aid / f"{aid}.ipynb"
    assert COURSE.release(aid) == COURSE.root / "notebooks" / aid / f"{aid}.ipynb"
    assert COURSE.submitted("ana", aid) == COURSE.root / "submitted" / "ana" / aid
    assert COURSE.autograded("ana", aid) == COURSE.root / "autograded" / "ana" / aid / f"{aid}.ipynb"
    assert COURSE.feedback("ana", aid) == COURSE.root / "feedback" / "ana" / aid / f"{aid}.html"
    assert COURSE.db_url == f"sqlite:///{COURSE.root / 'gradebook.db'}" and COURSE.course_id == "attention-graded"


def test_a_renamed_folder_in_the_config_is_followed(tmp_path):
    (tmp_path / "solutions" / "01_x").mkdir(parents=True)
    (tmp_path / "solutions" / "01_x" / "01_x.ipynb").write_text("{}")
    (tmp_path / "nbgrader_config.py").write_text(
        'c = get_config()\nc.CourseDirectory.source_directory = "solutions"\n'
        'c.CourseDirectory.release_directory = "handout"\nc.CourseDirectory.submitted_directory = "inbox"\n'
        'c.CourseDirectory.db_url = "postgresql://grader@db/course"\nc.CourseDirectory.course_id = "demo"\n')
    course = Course(tmp_path)
    assert course.ids() == ["01_x"]
    assert course.release("01_x") == tmp_path / "handout" / "01_x" / "01_x.ipynb"
    assert course.submitted("ana", "01_x") == tmp_path / "inbox" / "ana" / "01_x"
    assert (course.db_url, course.course_id) == ("postgresql://grader@db/course", "demo")
    assert course.students() == []
    (tmp_path / "inbox" / "ana").mkdir(parents=True)
    (tmp_path / "inbox" / ".hidden").mkdir()
    assert course.students() == ["ana"]


def test_select_takes_ids_and_prefixes_and_names_the_known_ones():
    assert COURSE.select(None) == IDS and COURSE.select([IDS[2][:2], IDS[0]]) == [IDS[2], IDS[0]]
    with pytest.raises(CourseError, match="Known ids: " + IDS[0]):
        COURSE.select(["99"])


def test_find_root_walks_up_and_explains_itself(tmp_path, monkeypatch):
    monkeypatch.delenv("COURSE_ROOT", raising=False)
    assert find_root(COURSE.root / "notebooks" / IDS[0]) == COURSE.root
    with pytest.raises(CourseError, match="Run `course` from inside the repository"):
        find_root(tmp_path)
    monkeypatch.setenv("COURSE_ROOT", str(COURSE.root))
    assert find_root(tmp_path) == COURSE.root


def test_a_missing_config_or_source_folder_is_a_clear_error(tmp_path):
    with pytest.raises(CourseError, match="nbgrader_config.py is missing"):
        Course(tmp_path).ids()
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    with pytest.raises(CourseError, match="source folder"):
        Course(tmp_path).ids()
