"""`course demo`, the README's main job, end to end.

The demo executes every solution notebook with papermill in fast mode on the CPU (on a
machine without a GPU, as CI is), so this test is also the suite's check that every
notebook runs without error, and, through course_utils.qa.figure_audit, that every figure is
readable, and, through course_utils.qa.claims, that every measured number the prose states is one
its run printed: one execution serves all four, which keeps the suite short.
"""
import csv
import os
import re

import nbformat
import pytest

from conftest import COURSE, IDS, ROOT, run_course
from course_utils.qa import claims, figure_audit

DRAWS = ("plt.", "attention_heatmap(", "line_plot(", ".plot(", ".imshow(")


def _draws_figures(aid):
    nb = nbformat.read(str(COURSE.solution(aid)), as_version=4)
    return any(word in cell.source for cell in nb.cells if cell.cell_type == "code" for word in DRAWS)


@pytest.mark.slow
def test_course_demo_end_to_end_with_readable_figures(tmp_path):
    audit = tmp_path / "figures.jsonl"
    result = run_course("demo", timeout=1800, env=dict(os.environ, **{figure_audit.ENV: str(audit)}))
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    for step in ("[1/4] Release check", "[2/4] Executing", "[3/4] Sample class", "[4/4] Autograding"):
        assert step in out
    assert "fast mode on the CPU" in out, "CI has no GPU: the demo runs the fast mode"
    for aid in IDS:
        assert re.search(rf"^{aid}\s+ok\s", out, flags=re.M), f"{aid} did not execute cleanly:\n{out}"
        assert (ROOT / "build" / "executed" / f"{aid}.ipynb").is_file()
    assert "in sync" in out and "Demo passed" in out
    assert "kernel CPU s" in out, "each notebook's CPU seconds, what a run costs on any machine"
    assert "build/demo-class/  the class, a course root of its own" in out, "the demo says where it wrote"
    with (ROOT / "build" / "demo-class" / "reports" / "grades.csv").open() as handle:
        stamps = {row["timestamp"] for row in csv.DictReader(handle)}
    assert "" not in stamps and len(stamps) == 1, f"every submission carries the class's submission time: {stamps}"

    # Every figure has a title (or its figure a suptitle) and axis labels, and reads in
    # grayscale: no rainbow or diverging colour map, no two curves told apart by colour alone.
    records = figure_audit.read(audit)
    drawn = {r["notebook"] for r in records}
    assert drawn <= set(IDS), f"figures recorded outside the solution notebooks: {drawn - set(IDS)}"
    silent = [aid for aid in IDS if _draws_figures(aid) and aid not in drawn]
    assert not silent, f"these notebooks draw figures but none was recorded: {silent}"
    issues = [f"{r['notebook']} cell [{r.get('cell')}]: {p}" for r in records for p in figure_audit.problems(r)]
    assert not issues, "figures a reader cannot read:\n" + "\n".join(issues)

    # The claims audit passed inside the demo; here it must also refuse a wrong number planted in the
    # prose of a real notebook: the first number a reading takes from the run, moved to a value the run
    # printed nowhere.
    assert "prose: every measured number stated is this run's" in out
    executed = {aid: nbformat.read(str(ROOT / "build" / "executed" / f"{aid}.ipynb"), as_version=4) for aid in IDS}
    assert all(claims.audit(nb, ROOT) == [] for nb in executed.values())
    aid, cell, number = next((aid, cell, s) for aid, nb in executed.items() for cell in nb.cells
                             if cell.cell_type == "markdown" and not cell.metadata.get("course", {}).get("claims")
                             for s in claims.stated_numbers(cell.source))
    printed = claims.printed_values(executed[aid])
    wrong = next(f"{number.value + k * 10 ** -number.decimals:.{number.decimals}f}" for k in range(7, 1000)
                 if not claims.matches(claims.Stated("", number.value + k * 10 ** -number.decimals,
                                                      number.decimals, number.percent), printed))
    cell.source = cell.source.replace(number.text.rstrip(" %\u2009\u202f\u00a0"), wrong, 1)
    problems = claims.audit(executed[aid], ROOT)
    assert len(problems) == 1 and wrong in problems[0], (aid, number, wrong, problems)
