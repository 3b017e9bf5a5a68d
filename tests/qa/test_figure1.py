"""The course's map (the paper's Figure 1, redrawn): in every notebook, current, marked, accessible."""
import base64
import io
import re

import numpy as np
import pytest
from PIL import Image

from conftest import COURSE, IDS
from course_utils import ipynb
from course_utils.qa import figure1

REBUILD = "rebuild the maps: python -m course_utils.qa.figure1, then course generate"
ATTACHMENT = "attachment:" + figure1.FILE_NAME


def _image(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def test_every_notebook_has_a_map():
    assert set(figure1.MARKS) == set(IDS)


@pytest.mark.parametrize("aid", IDS)
def test_each_notebook_opens_with_its_current_map_and_alt_text(aid):
    fresh = np.asarray(_image(figure1.png(aid)), dtype=float)
    for path in (COURSE.solution(aid), COURSE.release(aid)):
        cells = ipynb.read(path).cells
        maps = [i for i, c in enumerate(cells) if c.cell_type == "markdown" and ATTACHMENT in c.source]
        assert maps == [1], f"{path.name}: the map belongs right after the opening cell, once"
        attachments = cells[1].get("attachments") or {}
        assert list(attachments) == [figure1.FILE_NAME] and list(attachments[figure1.FILE_NAME]) == [figure1.MIME], \
            f"{path.name}: the map cell carries exactly one PNG ({REBUILD})"
        stored = _image(base64.b64decode("".join(attachments[figure1.FILE_NAME][figure1.MIME])))
        # Pixels, within a rounding margin, rather than bytes: another build of the font
        # renderer may move an edge by a grey level; a stale map differs in whole blocks.
        assert stored.size == (figure1.WIDTH, figure1.HEIGHT), f"{path.name}: the map is stale: {REBUILD}"
        changed = np.abs(np.asarray(stored.convert("L"), dtype=float) - fresh) > 32
        assert changed.mean() < 0.002, f"{path.name}: the map is stale ({changed.mean():.1%} of pixels): {REBUILD}"
        match = re.search(r"!\[([^\]]+)\]\(" + re.escape(ATTACHMENT) + r"\)", cells[1].source)
        assert match and match.group(1) == figure1.alt_text(aid), f"{path.name}: the map's alt text is stale: {REBUILD}"


@pytest.mark.parametrize("aid", IDS)
def test_a_map_marks_exactly_its_notebooks_blocks(aid):
    keys, _ = figure1.MARKS[aid]
    marked = figure1.marked_blocks(aid)
    assert (aid == "00_welcome") == (not keys), "every notebook but the welcome marks something"
    assert all(figure1.marks(block, keys) for block in marked)
    named = {figure1.stack_of(b) + ":" + b.key for b in figure1.BLOCKS} | {b.key for b in figure1.BLOCKS}
    assert set(keys) <= named | {"stacks", "encoder", "decoder"}, f"a key that marks nothing: {keys}"
    for block in marked:   # each marked label is named in the alt text a screen reader reads
        assert block.label.replace("\n", " ") in figure1.alt_text(aid)
    # Marking shows in the pixels: a marked block is hatched grey, an unmarked one white inside.
    pixels = np.asarray(_image(figure1.png(aid)), dtype=float)
    for block in figure1.BLOCKS:
        x0, y0 = block.x - figure1.LEFT + 8, block.y + 5   # a strip inside the frame, left of the label
        inside = pixels[y0:y0 + block.height - 10, x0:x0 + 6]
        assert (inside.mean() < 240) == (block in marked), f"{block.label!r} in {aid}: marked {block in marked}"


def test_a_map_reads_in_grayscale_and_says_what_it_shows():
    """8-bit grey, so nothing can depend on colour; title and description travel inside the PNG."""
    image = _image(figure1.png("05_positional_encoding"))
    assert image.mode == "L"
    assert image.text["Title"].startswith("Notebook 05")
    assert image.text["Description"] == figure1.alt_text("05_positional_encoding")


def test_a_rebuild_changes_no_byte():
    assert figure1.png("03_multi_head_attention") == figure1.png("03_multi_head_attention")
