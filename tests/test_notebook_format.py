"""Source and release notebooks are clean nbformat 4.5 files that nbgrader and papermill can use."""
import ast
import re

import nbformat
import pytest

from conftest import COURSE, IDS

SOURCES = [COURSE.solution(aid) for aid in IDS]
RELEASES = [COURSE.release(aid) for aid in IDS]


def _meta(cell):
    return cell.metadata.get("nbgrader", {})


@pytest.mark.parametrize("path", SOURCES + RELEASES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_clean_nbformat_45(path):
    nb = nbformat.read(str(path), as_version=4)
    nbformat.validate(nb)
    assert (nb.nbformat, nb.nbformat_minor) == (4, 5)
    ids = [c.id for c in nb.cells]
    assert len(ids) == len(set(ids)), "cell ids must be unique"
    assert nb.metadata.kernelspec.name == "python3"
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, f"cell {i} was saved with outputs"


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.parent.name)
def test_parameters_cell(path):
    nb = nbformat.read(str(path), as_version=4)
    tagged = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1, "exactly one cell tagged 'parameters'"
    values = {t.id: node.value for node in ast.parse(tagged[0].source).body if isinstance(node, ast.Assign)
              for t in node.targets}
    assert {"device", "fast", "seed"} <= set(values)
    # Anything more switches on a long study (07's ablation): off by default, so that full mode still
    # fits its time on one GPU and a grader's run, which sets only these three, never starts one.
    extras = {name: value for name, value in values.items() if name not in ("device", "fast", "seed")}
    assert all(isinstance(v, ast.Constant) and v.value is False for v in extras.values()), extras


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.parent.name)
def test_grade_cells_are_locked_scored_and_end_with_a_statement(path):
    nb = nbformat.read(str(path), as_version=4)
    grade_ids = [_meta(c)["grade_id"] for c in nb.cells if _meta(c)]
    assert len(grade_ids) == len(set(grade_ids)), "grade_ids must be unique"
    for cell in nb.cells:
        meta = _meta(cell)
        if meta.get("grade") and not meta.get("solution"):
            assert meta["locked"] and meta["points"] > 0, meta["grade_id"]
            body = ast.parse(cell.source).body
            # A test cell whose last line is an expression gives that value as partial credit.
            assert not (isinstance(body[-1], ast.Expr) and not isinstance(body[-1].value, ast.Call)), \
                f"{meta['grade_id']} ends with an expression"
        if meta.get("solution") and cell.cell_type == "code":
            assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.parent.name)
def test_notebook_opens_and_closes_for_the_student(path):
    nb = nbformat.read(str(path), as_version=4)
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert markdown[0].startswith("# "), "the first cell is the notebook's title"
    assert "## What you learned" in markdown[-1], "the last cell sums up what was learned"


@pytest.mark.parametrize("aid", IDS)
def test_notebook_says_what_you_will_build_and_links_the_next_one(aid):
    """Opens with a short "What you will build" (00, which builds nothing: "What you will do"),
    closes with "What you learned" and a **Next:** link to the following notebook (the last
    notebook links back instead). The release shows the same cells."""
    position = IDS.index(aid)
    for path in (COURSE.solution(aid), COURSE.release(aid)):
        if not path.is_file():
            continue  # not released yet
        nb = nbformat.read(str(path), as_version=4)
        markdown = [c.source for c in nb.cells if c.cell_type == "markdown"]
        opening, closing = markdown[0], markdown[-1]
        assert re.search(r"\*\*What you will (build|do)\b", opening), f"{path.name}: no 'What you will build'"
        assert len(opening.split()) <= 250, f"{path.name}: the opening cell should stay short"
        assert "## What you learned" in closing, f"{path.name}: no 'What you learned' at the end"
        links = re.findall(r"\]\(\.\./([^/)]+)/([^/)]+)\.ipynb\)", closing)
        for folder, name in links:
            assert folder == name and folder in IDS, f"{path.name}: the link to {folder}/{name}.ipynb is broken"
        if position + 1 < len(IDS):
            following = IDS[position + 1]
            assert re.search(rf"\*\*Next:?\*\*:?\s*\[[^\]]+\]\(\.\./{following}/{following}\.ipynb\)", closing), \
                f"{path.name}: the last cell must end with **Next:** [..](../{following}/{following}.ipynb)"
        else:
            assert links, f"{path.name}: the last notebook links back to the course (e.g. 00_welcome)"


DEPARTURE = "**Departure from the paper.**"


def test_every_departure_from_the_paper_is_in_the_readmes_list():
    """A notebook that boxes a choice the paper does not make is named in docs/departures.md, and
    the list names no notebook without such a box."""
    section = (COURSE.root / "docs" / "departures.md").read_text()
    listed = set(re.findall(r"^- \*\*(\d\d)\*\*:", section, flags=re.M))
    boxed = {aid[:2] for aid in IDS
             if any(c.cell_type == "markdown" and DEPARTURE in c.source
                    for c in nbformat.read(str(COURSE.solution(aid)), as_version=4).cells)}
    assert boxed, "no notebook has a departure box: the list would be empty"
    assert listed == boxed, f"boxed in notebooks {sorted(boxed)}, listed in docs/departures.md {sorted(listed)}"
