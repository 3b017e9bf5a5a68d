"""The `course` command: clear errors, defaults written once, and Validate as a student uses it."""
import inspect
import os
import subprocess
import sys

import pytest

from conftest import COURSE, IDS, run_course


def test_unknown_id_names_the_known_ones():
    result = run_course("execute", "99_nothing")
    assert result.returncode == 2
    assert "Unknown notebook id '99_nothing'" in result.stderr and IDS[0] in result.stderr


def test_outside_a_course_says_where_to_run(tmp_path):
    result = run_course("generate", "--check", cwd=tmp_path)
    assert result.returncode == 2 and "Run `course` from inside the repository" in result.stderr


def test_demo_help_says_what_it_does_and_where_it_writes(capsys):
    from course_utils.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["demo", "--help"])
    text = capsys.readouterr().out
    for words in ("execute every solution notebook", "build/executed/", "build/demo-class/", "grades.csv",
                  "course feedback", "Exit status"):
        assert words in text, words


def test_missing_solution_notebook_is_named(tmp_path):
    (tmp_path / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.source_directory = "solutions"\n')
    (tmp_path / "solutions" / "01_empty").mkdir(parents=True)
    result = run_course("generate", cwd=tmp_path)
    assert result.returncode == 2 and "01_empty.ipynb" in result.stderr


@pytest.mark.slow
def test_catalogue_command_prints_its_table():
    result = run_course("catalogue", IDS[0])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "perfect submission" in result.stdout and "0 misses" in result.stdout
    alone = run_course("catalogue", "--alone", IDS[0])
    assert alone.returncode == 0 and "(every entry alone)" in alone.stdout, alone.stdout + alone.stderr


def test_autograde_without_submissions_explains_the_layout(tmp_path):
    for name in ("nbgrader_config.py",):
        (tmp_path / name).write_text((COURSE.root / name).read_text())
    (tmp_path / "solutions").mkdir()
    result = run_course("autograde", cwd=tmp_path)
    assert result.returncode == 2 and "submitted" in result.stderr


def test_every_default_is_the_one_of_the_function_the_command_calls():
    from course_utils.cli import build_parser
    from course_utils.grader.engine.jobs import Limits
    from course_utils.grader.engine.pipeline import autograde
    from course_utils.qa import catalogue
    from course_utils.qa.execute import execute

    parser = build_parser()
    args = parser.parse_args(["autograde"])
    assert (args.workers, args.cell_timeout, args.timeout, args.memory_gb * 2**30) == (
        inspect.signature(autograde).parameters["workers"].default, Limits.cell_seconds, Limits.job_seconds,
        Limits.memory_bytes)
    assert parser.parse_args(["catalogue"]).workers == inspect.signature(catalogue.run).parameters["workers"].default
    args = parser.parse_args(["execute"])
    assert (args.device, args.seed) == tuple(inspect.signature(execute).parameters[p].default
                                             for p in ("device", "seed"))


def test_help_loads_no_heavy_library():
    """`course --help` builds every subcommand's parser without nbgrader, nbformat, papermill or torch."""
    code = ("import sys\nfrom course_utils.cli import build_parser\nbuild_parser()\n"
            "print(sorted(m for m in ('nbgrader', 'nbformat', 'papermill', 'torch', 'dask') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr


def test_every_command_that_opens_the_gradebook_takes_the_same_db_url():
    from course_utils.cli import build_parser
    from course_utils.cli.common import DB_URL_HELP

    parser = build_parser()
    url = "postgresql://grader@db/course"
    for command in ("autograde", "feedback", "export", "report", "lab"):
        assert parser.parse_args([command, "--db-url", url]).db_url == url, command
        options = parser._subparsers._group_actions[0].choices[command]._option_string_actions
        assert options["--db-url"].help == DB_URL_HELP, f"{command} has its own --db-url"


def _free_port():
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_lab_refuses_a_db_url_the_formgrader_would_not_follow(tmp_path, monkeypatch):
    """nbgrader's formgrader rereads nbgrader_config.py, whose own db_url then wins over the command line."""
    from course_utils.cli.common import DB_URL_ENV
    from course_utils.cli.lab import require_config_follows
    from course_utils.course import Course

    (tmp_path / "solutions").mkdir()
    fixed = 'c = get_config()\nc.CourseDirectory.db_url = "sqlite:///fixed.db"\n'
    (tmp_path / "nbgrader_config.py").write_text(fixed)
    url = "postgresql://grader@db/course"
    result = run_course("lab", "--instructor", "--no-browser", "--port", _free_port(), "--db-url", url, cwd=tmp_path)
    assert result.returncode == 2 and DB_URL_ENV in result.stderr and "--db-url cannot reach" in result.stderr
    (tmp_path / "nbgrader_config.py").write_text(
        f'import os\n{fixed}c.CourseDirectory.db_url = os.environ.get("{DB_URL_ENV}", c.CourseDirectory.db_url)\n')
    monkeypatch.delenv(DB_URL_ENV, raising=False)
    require_config_follows(Course(tmp_path), url)
    assert DB_URL_ENV not in os.environ, "the check leaves this process's environment as it was"
