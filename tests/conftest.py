"""Shared fixtures: the course under test is this repository."""
import sys
from pathlib import Path

import pytest

from course_utils.course import Course

ROOT = Path(__file__).resolve().parents[1]
COURSE = Course(ROOT)
IDS = COURSE.ids()


@pytest.fixture(scope="session")
def course():
    return COURSE


def run_course(*args, cwd=ROOT, timeout=1800):
    """Run the `course` command as a user would; return the CompletedProcess."""
    import subprocess

    return subprocess.run([sys.executable, "-m", "course_utils", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)
