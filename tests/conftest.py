"""Shared fixtures: the course under test is this repository."""
import gc
import os
import sys
from pathlib import Path

import pytest

from course_utils.course import Course
from course_utils.ipynb import skip_iri_format_checker

skip_iri_format_checker()  # this process reads notebooks too: seconds off collection

ROOT = Path(__file__).resolve().parents[1]
COURSE = Course(ROOT)
IDS = COURSE.ids()


@pytest.fixture(scope="session")
def course():
    return COURSE


@pytest.fixture
def postgres_url():
    """A fresh database on the PostgreSQL server .ci/run starts (COURSE_TEST_POSTGRES_URL)."""
    base = os.environ.get("COURSE_TEST_POSTGRES_URL")
    if not base:
        pytest.skip("COURSE_TEST_POSTGRES_URL is not set: .ci/run installs and starts PostgreSQL for this test")
    import time

    import psycopg

    name = f"course_test_{os.getpid()}_{time.time_ns()}"
    admin = psycopg.connect(base, autocommit=True)
    admin.cursor().execute(f'CREATE DATABASE "{name}"')
    yield base.rsplit("/", 1)[0] + "/" + name
    admin.cursor().execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    admin.close()


def run_course(*args, cwd=ROOT, timeout=1800, env=None):
    """Run the `course` command as a user would; return the CompletedProcess."""
    import subprocess

    return subprocess.run([sys.executable, "-m", "course_utils", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def hidden_test_lines(aid, longer_than):
    """The stripped lines, longer than `longer_than` characters, of `aid`'s hidden tests."""
    import nbformat

    lines = set()
    for cell in nbformat.read(str(COURSE.solution(aid)), as_version=4).cells:
        if "### BEGIN HIDDEN TESTS" in cell.source:
            body = cell.source.split("### BEGIN HIDDEN TESTS")[1].split("### END HIDDEN TESTS")[0]
            lines |= {ln.strip() for ln in body.splitlines() if len(ln.strip()) > longer_than}
    return lines


def _expected_seconds(item):
    """A rough cost, so the longest tests start first and both xdist workers finish together."""
    if item.originalname == "test_graders_catch_wrong_answers_and_accept_right_ones":
        from course_utils.qa.catalogue import load, right_groups, wrong_groups

        aid = item.callspec.params["aid"]
        entries = load(COURSE, aid)
        return 6 * (2 + len(wrong_groups(COURSE, aid, entries)[0]) + len(right_groups(entries)))
    heavy = {"test_course_demo_end_to_end_with_readable_figures": 500, "test_bench_quick_prints_every_part": 150}
    if item.originalname in heavy:
        return heavy[item.originalname]
    return 100 if item.get_closest_marker("slow") else 0


# Modules whose tests share a module fixture that grades a whole class. Under xdist, tests of
# one such module must run on one worker, or each worker grades the class again (minutes).
# xdist's own `--dist loadgroup` cannot do it here: it renames item._nodeid, which pytest 9.2
# no longer reads, so the groups never reach the scheduler. The scheduler below does it.
SHARED_CLASS_MODULES = ("tests/grader/engine/test_grading_scale.py", "tests/grader/judge/test_grading_security.py",
                        "tests/grader/judge/test_job_limits.py",
                        "tests/grader/engine/test_pipeline.py", "tests/grader/term/test_exchange.py",
                        "tests/grader/term/test_feedback.py")


@pytest.hookimpl(optionalhook=True)  # an xdist hook: the suite still runs with `-p no:xdist`
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "load":
        return None  # another --dist was asked for: xdist's own scheduler
    from xdist.scheduler import LoadScopeScheduling

    class SharedClassScheduling(LoadScopeScheduling):
        """xdist's `load`, except that a shared-class module is one unit of work."""

        def _split_scope(self, nodeid):
            module = nodeid.split("::", 1)[0]
            return module if module in SHARED_CLASS_MODULES else nodeid

    config.option.loadscopereorder = False  # keep the longest-first order of the collection
    return SharedClassScheduling(config, log)


def pytest_configure(config):
    """Under xdist, each worker (and every process it starts) runs on a core of its own.

    Each worker grades with kernels that take their share of the cores they may use
    (course_utils.grader.engine.pipeline.share_cores reads the CPU affinity): two workers that
    each believed they had both cores ran two threads per kernel on two cores, and a graded
    notebook 07 took 45% longer than with one thread each.
    """
    worker = getattr(config, "workerinput", None)
    if worker is None or not hasattr(os, "sched_setaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    count = int(worker["workercount"])
    if len(cores) >= count > 1:
        index = int(worker["workerid"].removeprefix("gw"))
        os.sched_setaffinity(0, set(cores[index::count]))


def pytest_collection_finish(session):
    # What collection imported (torch, nbgrader, the course) lives as long as the run: out of
    # every later garbage collection, whose full passes would otherwise walk it again and again
    # while tests grade in this process.
    gc.freeze()


def pytest_collection_modifyitems(items):
    # Longest first (a stable sort keeps the usual order among equals): with two workers
    # the suite then ends when the work does, not after one long test started last.
    items.sort(key=_expected_seconds, reverse=True)
