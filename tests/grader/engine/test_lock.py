"""One grading run per course: the lock waits, refuses with --no-wait, and outlives no killed holder;
runs of `course autograde` and the formgrader's button at once leave every row right."""
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from conftest import run_course
from course_utils.course import Course
from course_utils.grader.engine.lock import CourseBusy, course_lock, lock_path
from test_grading_scale import AID, LIMITS, _class, _rows, honest_students


@pytest.fixture
def course(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text("")
    return Course(tmp_path)


def test_a_second_run_may_refuse_and_names_the_first(course):
    with course_lock(course, "course autograde"):
        with pytest.raises(CourseBusy) as busy:
            with course_lock(course, "the formgrader's Autograde button", wait=False):
                pytest.fail("two holders at once")
    message = str(busy.value)
    assert f"course autograde (PID {os.getpid()}" in message and "started 20" in message
    assert busy.value.exit_code == 75


def test_a_second_run_waits_saying_for_whom_then_runs(course):
    said, order = [], []
    first_holds = threading.Event()

    def first():
        with course_lock(course, "course autograde --force"):
            first_holds.set()
            time.sleep(0.6)
            order.append("first done")

    thread = threading.Thread(target=first)
    thread.start()
    first_holds.wait(5)
    with course_lock(course, "course feedback", poll=0.05, say=said.append):
        order.append("second runs")
    thread.join()
    assert order == ["first done", "second runs"]
    assert len(said) == 1 and said[0].startswith("waiting for course autograde --force (PID")
    assert json.loads(lock_path(course).read_text())["running"] is False, "released: the file says so"


def test_the_lock_of_a_killed_run_is_taken_over(course):
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from course_utils.course import Course; "
         "from course_utils.grader.engine.lock import course_lock\n"
         "with course_lock(Course(Path(sys.argv[1])), 'course autograde'):\n"
         "    print('holding', flush=True); time.sleep(600)", str(course.root)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "holding"
        with pytest.raises(CourseBusy, match=f"PID {holder.pid}"):
            with course_lock(course, "course autograde", wait=False):
                pass
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        said = []
        with course_lock(course, "course autograde", wait=False, say=said.append) as previous:
            assert previous["pid"] == holder.pid and previous["running"] is True
        assert len(said) == 1 and f"taking over the lock of course autograde (PID {holder.pid}" in said[0]
    finally:
        holder.kill()
        holder.wait()


def _holding(lock, pid, deadline):
    """Wait until the process `pid` holds the course's grading lock."""
    while time.time() < deadline:
        try:
            if json.loads(lock.read_text()).get("pid") == pid:
                return True
        except (OSError, json.JSONDecodeError):
            pass
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_runs_at_once_take_turns_and_leave_every_row_right(tmp_path):
    """A cron job's plain run, a TA's --force, a --no-wait run and the formgrader's button, all at once."""
    from course_utils.grader.term import formgrader

    scratch = _class(tmp_path, {f"s{i}": honest_students()["a_perfect"] for i in range(2)})
    journal = scratch.root / "build" / "grading" / "journal.jsonl"
    command = [sys.executable, "-m", "course_utils", "autograde", *LIMITS]
    first = subprocess.Popen(command, cwd=scratch.root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    second = None
    try:
        assert _holding(scratch.root / "build" / "grading" / "lock", first.pid, time.time() + 120)
        second = subprocess.Popen([*command, "--force", "--student", "s0"], cwd=scratch.root,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        refused = run_course("autograde", "--no-wait", *LIMITS, cwd=scratch.root)
        assert refused.returncode == 75 and f"course autograde (PID {first.pid}" in refused.stderr, refused.stderr
        button = formgrader.grade_one(scratch.root, AID, "s1")
        assert button["success"] is False and f"(PID {first.pid}" in button["error"], button
        _, first_err = first.communicate(timeout=600)
        _, second_err = second.communicate(timeout=600)
    finally:
        for process in (first, second):
            if process is not None and process.poll() is None:
                process.kill()
    assert first.returncode == 0 and second.returncode == 0, first_err + second_err
    assert f"waiting for course autograde (PID {first.pid}" in second_err, second_err
    graded = [(r["student_id"], r["score"]) for r in map(json.loads, journal.read_text().splitlines())]
    assert sorted(s for s, _ in graded) == ["s0", "s0", "s1"], "the first run graded both, --force s0 again"
    rows = _rows(scratch.root)
    assert all(r["status"] == "graded" and r["score"] == r["max_score"] for r in rows.values()), rows
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{scratch.root / 'gradebook.db'}", "attention-graded") as gb:
        stored = {s.student.id: float(s.score) for s in gb.find_assignment(AID).submissions}
    assert stored == {name: float(row["score"]) for name, row in rows.items()}

    again = run_course("autograde", *LIMITS, cwd=scratch.root)
    assert again.returncode == 0 and journal.read_text().count("\n") == 3, "a plain run grades nothing twice"
