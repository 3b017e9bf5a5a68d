"""The catalogue's entries and verdicts (the grading itself is proven in test_graders.py)."""
import pytest

from conftest import COURSE, IDS
from course_utils.course import Course, CourseError
from course_utils.qa.catalogue import Verdict, load


def test_entries_are_named_by_kind_and_exercise():
    entries = load(COURSE, IDS[1])
    assert entries and {e.kind for e in entries} == {"wrong", "right"}
    entry = entries[0]
    assert entry.student_id == f"{entry.kind}--{entry.grade_id}--{entry.name}"
    assert load(COURSE, "00_welcome") == []


def test_a_misnamed_catalogue_file_is_an_error(tmp_path):
    folder = tmp_path / "tests" / "bug_catalogue" / "01_x" / "softmax"
    folder.mkdir(parents=True)
    (folder / "oops.py").write_text('"""?"""')
    with pytest.raises(CourseError, match="wrong_<what>.py or right_<what>.py"):
        load(Course(tmp_path), "01_x")


@pytest.mark.parametrize("expected, score, ok", [("full", 5, True), ("full", 4.5, False), ("zero", 0, True),
                                                 ("zero", 1, False), ("less", 4, True), ("less", 5, False)])
def test_verdicts(expected, score, ok):
    assert Verdict("01_x", "softmax", "wrong_x", score, 5, expected, "").ok is ok


def test_a_flagged_right_answer_is_not_fair():
    assert not Verdict("01_x", "softmax", "right_x", 5, 5, "full", "", flags=("tampering: torch.allclose replaced",)).ok


def test_right_answers_of_different_exercises_share_submissions():
    from course_utils.qa.catalogue import right_groups

    entries = [e for aid in IDS for e in load(COURSE, aid)]
    for aid in IDS:
        mine = [e for e in entries if e.assignment == aid]
        groups = right_groups(mine)
        grouped = [e for together in groups.values() for e in together]
        assert sorted(grouped, key=str) == sorted((e for e in mine if e.kind == "right"), key=str), \
            "every right answer is in exactly one group"
        assert all(len({e.grade_id for e in g}) == len(g) for g in groups.values()), "one answer per exercise"
        most = max((sum(e.grade_id == g for e in mine if e.kind == "right") for g in {e.grade_id for e in mine}),
                   default=0)
        assert len(groups) == most


def test_rates_count_what_the_grader_and_what_the_visible_tests_catch():
    from course_utils.qa.catalogue import rates

    verdicts = [Verdict("01_x", "softmax", "wrong_a", 2, 3, "less", "", seen=True),
                Verdict("01_x", "softmax", "wrong_b", 1, 3, "less", "", seen=False),
                Verdict("01_x", "softmax", "wrong_c", 3, 3, "less", "", seen=False),   # a miss
                Verdict("01_x", "softmax", "right_d", 3, 3, "full", ""),
                Verdict("01_x", "(all)", "perfect submission", 3, 3, "full", "")]
    (rate,) = rates(verdicts)
    assert (rate.exercise, rate.wrong, rate.caught, rate.seen) == ("softmax", 3, 2, 1)


def test_visible_test_cells_are_the_test_cells_without_a_hidden_block():
    from course_utils.qa.catalogue import visible_test_cells

    cells = visible_test_cells(COURSE, "03_multi_head_attention")
    assert {"test_split_heads", "test_merge_heads", "test_MultiHeadAttention"} <= cells
    assert not any(c.startswith("hidden_") for c in cells)
