"""Writing the gradebook: a briefly unreachable database is tried again, a lasting failure is raised."""
import pytest

from course_utils.grader.engine.gradebook import retried


def test_a_failure_that_passes_is_tried_again():
    calls = []

    def flaky():
        calls.append(1)
        if len(calls) < 3:
            raise ConnectionError("server closed the connection unexpectedly")
        return "stored"

    assert retried(flaky, attempts=3, pause=0) == "stored" and len(calls) == 3


def test_a_lasting_failure_is_raised_after_the_last_attempt():
    calls = []

    def down():
        calls.append(1)
        raise ConnectionError("could not connect to server")

    with pytest.raises(ConnectionError):
        retried(down, attempts=2, pause=0)
    assert len(calls) == 2
