"""One record per graded (student, assignment): what grades.csv and the journal keep of it."""
import typing

from course_utils.grader.engine.records import CSV_COLUMNS, STATUSES, GradeRecord, Status, records_table, score_table


def test_statuses_are_a_closed_set():
    assert set(typing.get_args(Status)) == set(STATUSES) == {"graded", "error", "missing", "unmatched"}


def test_summary_has_the_csv_columns_and_round_trips():
    record = GradeRecord("ana", "01_x", "graded", 3.0, 5.0, "failed: test_softmax", ["source: softmax, line 2: x"],
                         cells={"test_softmax": (0.0, 2.0)}, autograded="{...}", log="...")
    summary = record.summary()
    assert list(summary) == CSV_COLUMNS
    again = GradeRecord.from_summary(summary)
    assert (again.student_id, again.assignment, again.status, again.score, again.max_score, again.detail,
            again.flags) == ("ana", "01_x", "graded", 3.0, 5.0, "failed: test_softmax", ["source: softmax, line 2: x"])
    assert summary["held"] == "yes" and again.held
    assert not record.full_marks and GradeRecord("b", "01_x", "graded", 5.0, 5.0).full_marks
    assert not GradeRecord("b", "01_x", "error", 0.0, 0.0).full_marks


def test_tables_show_every_student_and_status():
    records = [GradeRecord("ana", "01_x", "graded", 5.0, 5.0, "all tests passed"),
               GradeRecord("ana", "02_y", "missing", 0.0, 4.0, "no submitted/ana/02_y/02_y.ipynb"),
               GradeRecord("ben", "01_x", "error", 0.0, 5.0, "x" * 200, ["not isolated: because"])]
    scores = score_table(records, ["01_x", "02_y"])
    assert "5/5" in scores and "missing" in scores and "error" in scores and "5/9" in scores
    rows = records_table(records)
    assert "…" in rows and "not isolated" in rows


def test_only_evidence_about_the_student_holds_a_grade():
    def held(*flags, status="graded"):
        return GradeRecord("ana", "01_x", status, 5.0, 5.0, flags=list(flags)).held

    assert held("source: softmax, line 3: imports os (not a module the exercises use)")
    assert held("edited graded cell: test_softmax: source put back as the assignment has them")
    assert held("processes: 1 left running by the notebook, ended with the job")
    assert not held("not isolated: bubblewrap is not installed"), "the machine's doing, not the student's"
    assert not held("duplicate grade ids: a copy of cell softmax was kept as an ordinary cell")
    assert not held("misnamed notebook: graded my copy.ipynb in place of 01_x.ipynb")
    assert not held("source: softmax, line 3: x", status="error"), "nothing graded: nothing to hold"
    assert "graded, held" in records_table([GradeRecord("ana", "01_x", "graded", 5.0, 5.0, flags=["processes: 1"])])
