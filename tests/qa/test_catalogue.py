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


@pytest.mark.slow
def test_grading_entries_together_gives_the_verdicts_of_grading_each_alone():
    """Shared submissions are only a saving: every verdict, score and message is what grading alone gives."""
    from course_utils.qa import catalogue

    aid = "05_positional_encoding"
    chosen = {}  # the first three wrong and first right answer of two exercises whose reaches do not meet
    for entry in load(COURSE, aid):
        if entry.grade_id in ("sinusoidal_positional_encoding", "TokenEmbedding"):
            mine = chosen.setdefault((entry.grade_id, entry.kind), [])
            if len(mine) < (3 if entry.kind == "wrong" else 1):
                mine.append(entry.student_id)
    keep = {student for students in chosen.values() for student in students}
    grouped_jobs, alone_jobs = {}, {}
    grouped = catalogue.run(COURSE, [aid], workers=1, keep=lambda e: e.student_id in keep, stats=grouped_jobs)
    alone = catalogue.run(COURSE, [aid], workers=1, keep=lambda e: e.student_id in keep, alone=True,
                          stats=alone_jobs)
    assert len(grouped) == len(alone) == len(keep) + 2
    for one, reference in zip(grouped, alone, strict=True):
        assert (one.entry, one.ok, one.seen, one.score, one.max_score, sorted(one.messages)) == \
            (reference.entry, reference.ok, reference.seen, reference.score, reference.max_score,
             sorted(reference.messages))
    assert catalogue.table(grouped) == catalogue.table(alone)
    assert catalogue.rates(grouped) == catalogue.rates(alone)
    assert alone_jobs["jobs"] == len(keep) + 2
    assert grouped_jobs["jobs"] < alone_jobs["jobs"], (grouped_jobs, alone_jobs)
