"""The course's nbgrader preprocessors and the job config that swaps them into nbgrader's lists."""
import nbformat
import pytest
from nbgrader.preprocessors import (CheckCellMetadata, ClearOutput, DeduplicateIds, Execute, LimitOutput,
                                    OverwriteCells)
from traitlets.config import Config

from course_utils.grader.judge.preprocessors import execute_verdicts
from course_utils.grader.judge.preprocessors import (ExecuteVerdicts, KeepFirstGradeId, LimitOutputSize,
                                                     RestoreGradedCells, StripCellMetadata, configure_autograde)


def _cell(grade_id, source):
    return nbformat.v4.new_code_cell(source, metadata={"nbgrader": {"grade_id": grade_id, "solution": True,
                                                                    "grade": False, "locked": False}})


def test_keep_first_grade_id_turns_later_copies_into_ordinary_cells():
    nb = nbformat.v4.new_notebook(cells=[_cell("softmax", "first"), _cell("other", "x"), _cell("softmax", "copy")])
    nb, _ = KeepFirstGradeId().preprocess(nb, {})
    assert nb.cells[0].metadata.nbgrader["grade_id"] == "softmax"
    assert "nbgrader" not in nb.cells[2].metadata, "no empty nbgrader dict left for OverwriteCells to trip on"
    assert nb.cells[2].source == "copy"


def test_strip_cell_metadata_leaves_graded_cells_only_their_nbgrader_metadata_and_no_code_cell_a_tag():
    """nbclient skips a cell tagged skip-execution and lets one tagged raises-exception fail: a student's tags
    on a test cell must not decide how it runs."""
    test = _cell("test_softmax", "assert softmax(x) is not None")
    test.metadata.nbgrader.update(grade=True, solution=False, locked=True, points=2)
    test.metadata.update(tags=["skip-execution"], editable=True, jupyter={"source_hidden": True}, execution={})
    added = nbformat.v4.new_code_cell("print(1)", metadata={"tags": ["raises-exception"], "scrolled": True})
    text = nbformat.v4.new_markdown_cell("notes", metadata={"tags": ["mine"]})
    nb = nbformat.v4.new_notebook(cells=[test, added, text])
    nb, _ = StripCellMetadata().preprocess(nb, {})
    assert dict(nb.cells[0].metadata) == {"nbgrader": {"grade_id": "test_softmax", "solution": False, "grade": True,
                                                       "locked": True, "points": 2}}
    assert dict(nb.cells[1].metadata) == {"scrolled": True}, "an ordinary code cell keeps all but its tags"
    assert nb.cells[2].metadata["tags"] == ["mine"], "a markdown cell does not run"


def test_limit_output_size_cuts_long_text_and_keeps_short_text():
    cell = nbformat.v4.new_code_cell("print(...)")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="x" * 50),
                    nbformat.v4.new_output("execute_result", data={"text/plain": "y" * 50}, execution_count=1),
                    nbformat.v4.new_output("stream", name="stdout", text="short")]
    limiter = LimitOutputSize(max_chars=10, max_lines=-1)
    cell, _ = limiter.preprocess_cell(cell, {}, 0)
    assert cell.outputs[0].text.startswith("x" * 10) and "40 more characters cut" in cell.outputs[0].text
    assert cell.outputs[1].data["text/plain"].startswith("y" * 10) and len(cell.outputs[1].data["text/plain"]) < 60
    assert cell.outputs[2].text == "short"


@pytest.mark.slow
def test_a_message_over_the_limit_cuts_its_cell_and_the_cells_after_keep_their_output(tmp_path, monkeypatch):
    """The iopub socket refuses the message (libzmq then drops that connection for good): the cell says its
    output was cut, the report says so, and a new connection brings the next cells' output."""
    monkeypatch.setattr(execute_verdicts, "MAX_MESSAGE_BYTES", 1 << 20)
    reported = []
    monkeypatch.setattr(execute_verdicts, "record", lambda kind, detail: reported.append((kind, detail)))
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in (
        'print("before")', 'print("w" * (2 << 20))', 'print("after")', 'print("and after that")')])
    config = configure_autograde(Config(), cell_timeout=60)
    ExecuteVerdicts(config=config, kernel_name="python3").preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    texts = [[output.get("text", "") for output in cell.outputs] for cell in nb.cells]
    assert texts[0] == ["before\n"]
    assert "larger than the grader takes (1 MB)" in texts[1][-1] and not any("w" * 1000 in t for t in texts[1])
    assert texts[2:] == [["after\n"], ["and after that\n"]], "the cells after the refused message lost their output"
    assert reported == [("output", {"cell": 1, "message_bytes": 1 << 20})]


def test_configure_autograde_swaps_nbgraders_classes_and_keeps_the_rest():
    config = configure_autograde(Config(), cell_timeout=17, sockets="/tmp/ag-x/kernel")
    assert config.Execute.timeout == 17
    assert config.KernelManager.transport == "ipc" and config.KernelManager.ip == "/tmp/ag-x/kernel", \
        "the sandboxed kernel has no network: Unix sockets"
    sanitize, autograde = config.Autograde.sanitize_preprocessors, config.Autograde.autograde_preprocessors
    assert KeepFirstGradeId in sanitize and DeduplicateIds not in sanitize
    assert sanitize[0] is ClearOutput and OverwriteCells in sanitize and CheckCellMetadata in sanitize
    assert sanitize.index(RestoreGradedCells) == sanitize.index(OverwriteCells) - 1
    assert sanitize.index(StripCellMetadata) == sanitize.index(OverwriteCells) + 1, "after the repairs"
    assert LimitOutputSize in autograde and LimitOutput not in autograde
    assert autograde[0] is ExecuteVerdicts and Execute not in autograde, "the test cells are judged in the grader"
    assert config.LimitOutputSize.max_chars > 0


def test_configure_autograde_keeps_a_course_configured_list():
    class Extra(ClearOutput):
        pass

    config = Config()
    config.Autograde.sanitize_preprocessors = [Extra, DeduplicateIds]
    config.Autograde.autograde_preprocessors.append(Extra)   # a lazy "append to nbgrader's list"
    configure_autograde(config, cell_timeout=5)
    assert config.Autograde.sanitize_preprocessors == [Extra, KeepFirstGradeId, StripCellMetadata]
    configure_autograde(config, cell_timeout=5)
    assert config.Autograde.sanitize_preprocessors.count(StripCellMetadata) == 1, "configured twice, placed once"
    assert config.Autograde.autograde_preprocessors[-1] is Extra
    assert LimitOutputSize in config.Autograde.autograde_preprocessors


def _gradebook(tmp_path, hidden=False):
    from nbgrader.api import Gradebook

    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    with Gradebook(url) as gb:
        gb.add_assignment("a1")
        gb.add_notebook("a1", "a1")
        gb.add_source_cell("setup", "a1", "a1", cell_type="code", locked=True, source="import torch")
        gb.add_source_cell("answer", "a1", "a1", cell_type="code", locked=False, source="raise NotImplementedError")
        gb.add_solution_cell("answer", "a1", "a1")
        gb.add_source_cell("test_answer", "a1", "a1", cell_type="code", locked=True, source="assert f() == 1")
        gb.add_grade_cell("test_answer", "a1", "a1", max_score=2, cell_type="code")
        if not hidden:
            return url
        gb.add_source_cell("hidden_answer", "a1", "a1", cell_type="code", locked=True,
                           source="# Hidden tests\n### BEGIN HIDDEN TESTS\nassert f() == 2\n### END HIDDEN TESTS\n")
        gb.add_grade_cell("hidden_answer", "a1", "a1", max_score=1, cell_type="code")
    return url


def test_restore_graded_cells_puts_back_flags_points_and_deleted_cells(tmp_path, monkeypatch):
    import json
    import os
    import sys

    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])  # alembic
    report = tmp_path / "report.jsonl"
    monkeypatch.setenv("COURSE_SANDBOX_REPORT", str(report))
    answer = _cell("answer", "def f():\n    return 2")
    disguised = nbformat.v4.new_code_cell("pass", metadata={"nbgrader": {"grade_id": "test_answer", "grade": False,
                                                                          "locked": False, "solution": True}})
    stranger = nbformat.v4.new_code_cell("x = 1", metadata={"nbgrader": {"grade_id": "made_up", "grade": True,
                                                                         "points": 100, "locked": True}})
    nb = nbformat.v4.new_notebook(cells=[answer, disguised, stranger])   # the setup cell was deleted
    resources = {"nbgrader": {"db_url": _gradebook(tmp_path), "notebook": "a1", "assignment": "a1"}}
    nb, _ = RestoreGradedCells().preprocess(nb, resources)
    meta = nb.cells[2].metadata.nbgrader
    assert nb.cells[0].source == "import torch" and nb.cells[0].metadata.nbgrader["locked"], "the setup is back"
    assert meta["grade"] and meta["locked"] and not meta["solution"] and meta["points"] == 2
    assert "nbgrader" not in nb.cells[3].metadata, "an id the assignment does not have is an ordinary cell"
    found = [json.loads(line)["detail"] for line in report.read_text().splitlines()]
    assert any("test_answer" in f and "grade" in f for f in found) and any("setup: deleted" in f for f in found)
    assert any("made_up" in f for f in found)
    nb, _ = RestoreGradedCells().preprocess(nb, resources)
    assert len(report.read_text().splitlines()) == len(found), "a notebook as released needs no repair"


def _locked(grade_id, source, points):
    return nbformat.v4.new_code_cell(source, metadata={"nbgrader": {"grade_id": grade_id, "grade": True,
                                                                    "points": points, "locked": True,
                                                                    "solution": False}})


def test_restore_graded_cells_reports_a_test_whose_source_was_edited(tmp_path, monkeypatch):
    """OverwriteCells puts an edited test back silently; the edit is evidence, so it is reported."""
    import json
    import os
    import sys

    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])  # alembic
    report = tmp_path / "report.jsonl"
    monkeypatch.setenv("COURSE_SANDBOX_REPORT", str(report))
    setup = nbformat.v4.new_code_cell("import torch  ", metadata={"nbgrader": {"grade_id": "setup", "locked": True,
                                                                               "grade": False, "solution": False}})
    released = _locked("hidden_answer", "# Hidden tests\n", 1)  # as the release has it: the hidden part taken out
    cells = [setup, _cell("answer", "def f():\n    return 2"), _locked("test_answer", "pass  # assert f() == 1", 2),
             released]
    resources = {"nbgrader": {"db_url": _gradebook(tmp_path, hidden=True), "notebook": "a1", "assignment": "a1"}}
    RestoreGradedCells().preprocess(nbformat.v4.new_notebook(cells=cells), resources)
    found = [json.loads(line)["detail"] for line in report.read_text().splitlines()]
    assert found == ["test_answer: source put back as the assignment has them"], found
