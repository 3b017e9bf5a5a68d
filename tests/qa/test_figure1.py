"""The course's map (the paper's Figure 1, redrawn): in every notebook, current, marked, accessible."""
import re
import xml.etree.ElementTree as ET

import nbformat
import pytest

from conftest import COURSE, IDS
from course_utils.qa import figure1

REBUILD = "rebuild the maps: python -m course_utils.qa.figure1, then course generate"
ATTACHMENT = "attachment:" + figure1.FILE_NAME


def test_every_notebook_has_a_map():
    assert set(figure1.MARKS) == set(IDS)


def _map_cells(path):
    cells = nbformat.read(str(path), as_version=4).cells
    return cells, [i for i, c in enumerate(cells) if c.cell_type == "markdown" and ATTACHMENT in c.source]


@pytest.mark.parametrize("aid", IDS)
def test_each_notebook_opens_with_its_current_map_and_alt_text(aid):
    for path in (COURSE.solution(aid), COURSE.release(aid)):
        cells, maps = _map_cells(path)
        assert maps == [1], f"{path.name}: the map belongs right after the opening cell, once"
        assert cells[1].get("attachments") == figure1.attachments(aid), f"{path.name}: the map is stale: {REBUILD}"
        match = re.search(r"!\[([^\]]+)\]\(" + re.escape(ATTACHMENT) + r"\)", cells[1].source)
        assert match and len(match.group(1).split()) >= 8, f"{path.name}: the map needs alt text saying what it shows"


@pytest.mark.parametrize("aid", IDS)
def test_a_map_marks_exactly_its_notebooks_blocks(aid):
    svg = figure1.svg(aid)
    root = ET.fromstring(svg)
    namespace = "{http://www.w3.org/2000/svg}"
    assert root.find(namespace + "title").text and root.find(namespace + "desc").text
    keys, _ = figure1.MARKS[aid]
    expected = sum(block.key in keys for block in figure1.BLOCKS)
    assert svg.count('fill="url(#marked)"') == expected
    assert (aid == "00_welcome") == (expected == 0), "every notebook but the welcome marks something"


@pytest.mark.parametrize("aid", IDS)
def test_a_map_reads_in_grayscale(aid):
    """Black, white and greys only: what is marked is told by hatching and a bold frame, not by colour."""
    colours = re.findall(r'(?:fill|stroke)="(#[0-9a-fA-F]{3,6}|[a-z]+)"', figure1.svg(aid))
    assert colours
    for colour in colours:
        if colour in ("none", "black", "white"):
            continue
        digits = colour[1:]
        digits = "".join(d * 2 for d in digits) if len(digits) == 3 else digits
        assert digits[0:2] == digits[2:4] == digits[4:6], f"{colour} is not a grey"
