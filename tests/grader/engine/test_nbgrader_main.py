"""nbgrader's fork server: what it prepares once before it forks changes no run's outcome."""
import jsonschema
import nbformat
import pytest
from nbgrader.nbgraderformat import common
from nbgrader.nbgraderformat.v3 import MetadataValidatorV3

from course_utils.grader.engine.nbgrader_main import check_metadata_schemas_once


def _graded_cell(**nbgrader):
    meta = {"grade": True, "solution": False, "locked": True, "points": 2, "grade_id": "test_x",
            "schema_version": 3, **nbgrader}
    return nbformat.v4.new_code_cell("assert True", metadata={"nbgrader": meta})


def _error(cell):
    try:
        MetadataValidatorV3().validate_cell(cell)
    except jsonschema.ValidationError as error:
        return error.message
    return None


@pytest.mark.parametrize("cell, valid", [(_graded_cell(), True), (_graded_cell(points="two"), False),
                                         (_graded_cell(grade_id=7), False), (_graded_cell(locked="yes"), False)],
                         ids=["valid", "points", "grade_id", "locked"])
def test_schemas_checked_once_validate_every_cell_as_jsonschema_does(cell, valid, monkeypatch):
    expected = _error(cell)
    assert (expected is None) == valid, expected
    monkeypatch.setattr(common, "jsonschema", common.jsonschema)   # given back after the test
    check_metadata_schemas_once()
    assert common.jsonschema is not jsonschema, "nbgrader's validator now checks each schema once"
    assert [_error(cell) for _ in range(3)] == [expected] * 3
