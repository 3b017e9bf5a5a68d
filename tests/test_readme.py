"""The README's commands are the ones CI runs, and each command it and the guides it links to show
is exercised by a test."""
import re

from conftest import ROOT
from course_utils.cli import build_parser

README = (ROOT / "README.md").read_text()
# The README stays short; the guides it sends each reader to show the rest of the commands.
GUIDES = ("docs/students.md", "docs/instructors.md", "docs/testing.md")
SHOWN = "\n".join([README] + [(ROOT / guide).read_text() for guide in GUIDES])

# Each command the README shows, and the test that runs it.
EXERCISED_BY = {
    "python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/course demo": "qa/test_demo.py",
    'python3 -m venv .venv && .venv/bin/pip install -e ".[test]" && .venv/bin/python -m pytest -n 2': ".ci/run",
    ".venv/bin/course lab": "cli/test_course_lab.py",
    ".venv/bin/course lab --instructor": "cli/test_course_lab.py",  # the formgrader page: cli/test_browser.py
    "course lab": "cli/test_course_lab.py",
    ".venv/bin/course validate notebooks/01_queries_keys_values/01_queries_keys_values.ipynb": "cli/test_cli.py",
    ".venv/bin/course generate": "test_release.py",
    "course generate 02": "test_release.py",
    "course generate": "test_release.py",
    "course generate --check": "test_release.py",
    "course autograde": "grader/engine/test_pipeline.py",
    "course demo": "qa/test_demo.py",
    "course demo --help": "cli/test_cli.py",
    ".venv/bin/course generate --check": "test_release.py",
    ".venv/bin/course execute --fast": "qa/test_execute.py",  # and qa/test_demo.py
    ".venv/bin/course autograde --workers 2": "grader/engine/test_grading_scale.py",
    ".venv/bin/course feedback": "grader/engine/test_grading_scale.py",
    ".venv/bin/course report": "grader/engine/test_grading_scale.py",
    ".venv/bin/course bench grade": "grader/engine/test_grading_scale.py",
    ".venv/bin/course bench": "bench/test_bench.py",
    "course bench": "bench/test_bench.py",
    "course bench grade": "grader/engine/test_grading_scale.py",
    "course bench attention": "bench/test_bench.py",
    "course bench train": "bench/test_bench.py",
    "course bench decode": "bench/test_bench.py",
    "course bench mfu": "bench/test_bench.py",
    '.venv/bin/python -m pytest -m "not slow"': ".ci/run",  # the same suite, its fast layer
    'pip install -e ".[grader]"': "test_pins.py",
    "course bench --quick": "bench/test_bench.py",
    "course autograde --workers N": "grader/engine/test_grading_scale.py",
    "course autograde --scheduler tcp://HOST:8786": "grader/engine/test_grading_scale.py",
    "course autograde --scheduler": "grader/engine/test_grading_scale.py",
    "course feedback": "grader/engine/test_grading_scale.py",
    "course report": "grader/engine/test_grading_scale.py",
    ".venv/bin/course catalogue": "cli/test_cli.py",
    "course catalogue": "cli/test_cli.py",
    "course catalogue --alone": "cli/test_cli.py",
    ".venv/bin/course publish ../attention-graded-student --upto 03 --git": "grader/term/test_publish.py",
    "course publish DIR --upto NN": "grader/term/test_publish.py",
    "course publish": "grader/term/test_publish.py",
    ".venv/bin/course export": "grader/term/test_export.py",
    "course export": "grader/term/test_export.py",
    ".venv/bin/course answers": "grader/term/test_model_answers.py",
    "course answers": "grader/term/test_model_answers.py",
    "course lab --instructor": "cli/test_course_lab.py",  # its Autograde button: grader/term/test_formgrader.py
}


def _readme_commands(text=SHOWN):
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    inline = re.findall(r"`((?:\.venv/bin/|course )[^`]*)`", text)
    return {line.strip() for block in blocks for line in block.splitlines() if line.strip()} | set(inline)


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text()
    # The one that sets up and tests (the README also shows the fast layer's pytest command).
    test_command = next(c for c in _readme_commands(README) if "pytest" in c and "pip install" in c)
    assert test_command in ci.splitlines(), ".ci/run must run the README's test command verbatim"


def test_every_readme_command_is_exercised():
    unmapped = _readme_commands() - set(EXERCISED_BY)
    assert not unmapped, f"README commands no test exercises: {unmapped}"
    for command, where in EXERCISED_BY.items():
        assert command in SHOWN, f"stale entry: {command}"
        path = ROOT / where if where.startswith(".ci") else ROOT / "tests" / where
        assert path.is_file(), where


def test_readme_course_subcommands_exist():
    parser = build_parser()
    known = set(parser._subparsers._group_actions[0].choices)
    used = set(re.findall(r"`(?:\.venv/bin/)?course (\w+)", SHOWN))
    assert used <= known, f"README uses unknown course subcommands: {used - known}"


def test_readme_catalogue_table_counts_the_catalogue():
    from course_utils.qa.catalogue import load

    from conftest import COURSE

    testing = (ROOT / "docs" / "testing.md").read_text()
    rows = re.findall(r"^\| (\d\d_\w+) \| (\d+) \| (\d+) \| (\d+) \|$", testing, flags=re.M)
    stated = {aid: tuple(map(int, numbers)) for aid, *numbers in rows}
    actual = {}
    for aid in COURSE.ids():
        entries = load(COURSE, aid)
        if entries:
            actual[aid] = (len({e.grade_id for e in entries}), sum(e.kind == "wrong" for e in entries),
                           sum(e.kind == "right" for e in entries))
    assert stated == actual, "update the catalogue table in docs/testing.md"
    wrong, right = sum(v[1] for v in actual.values()), sum(v[2] for v in actual.values())
    for text in (testing, README):
        assert f"{wrong} of {wrong} wrong answers" in text and f"{right} of {right} right answers" in text


def test_binder_badge_launches_this_repository_into_the_notebooks():
    import tomllib

    repository = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Repository"]
    owner_repo = repository.removeprefix("https://github.com/")
    badge = re.search(r"\]\((https://mybinder\.org/v2/gh/([^/]+/[^/]+)/([^?]+)\?urlpath=lab/tree/([\w/]+))\)", README)
    assert badge, "the README needs a Binder launch badge opening JupyterLab"
    assert badge.group(2) == owner_repo, "the badge must launch the repository named in pyproject.toml"
    assert (ROOT / badge.group(4)).is_dir(), f"the badge opens {badge.group(4)}, which does not exist"


def test_readme_screenshot_exists():
    images = re.findall(r"!\[[^\]]+\]\(([^)]+\.png)\)", README)
    assert "docs/images/jupyterlab-notebook.png" in images
    for image in images:
        data = (ROOT / image).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 20_000, f"{image} is not a real screenshot"


def test_every_number_the_readme_states_is_a_recorded_one():
    """The README quotes measurements (times) only as recorded in docs/testing.md, as the notebooks' prose
    quotes only its run (course_utils.qa.claims): a number that the record does not hold is stale."""
    from course_utils.qa import claims

    # One hand-written table holds them (docs/testing.md, "How long things take"): a number found somewhere among
    # the thousands in docs/ would vouch for nothing.
    testing = (ROOT / "docs" / "testing.md").read_text()
    table = testing.split("## How long things take", 1)[1].split("\n## ", 1)[0]
    recorded = [value for value, _ in claims.numbers_in(table)]
    # Its counts ("414 of 414 wrong answers") are the catalogue's, checked against it by the test above.
    stated = [s for s in claims.stated_numbers(README) if s.decimals or s.percent]
    assert stated, "the README states no measured number: this test would check nothing"
    unrecorded = [s.text for s in stated if not claims.matches(s, [(value, s.percent) for value in recorded])]
    assert not unrecorded, f"README numbers that docs/testing.md's 'How long things take' does not record: {unrecorded}"
