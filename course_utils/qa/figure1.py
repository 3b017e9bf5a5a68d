"""The course's map: the paper's Figure 1 drawn as an SVG, one copy per notebook with its part marked.

For course authors. Every notebook opens with its map, carried inside the notebook as an
attachment of a Markdown cell (`attachment:figure1.svg`): it then travels wherever the
notebook goes (the release, the students' copy, nbgrader's exchange, the feedback HTML)
without a file beside it that nbgrader or the student's copy could lose. The drawing is
generated here rather than drawn by hand so that the nine copies stay identical except for
what they mark; tests/qa/test_figure1.py keeps each notebook's attachment equal to this
module's output.

Accessible by construction: black, white and grey only (a marked block is hatched and has a
thick border, so it reads in grayscale and without colour vision), text in the SVG itself,
and a <title>/<desc> plus the Markdown alt text for screen readers.

Plain SVG text rather than matplotlib: a static diagram needs no kernel, costs nothing when
a notebook runs, and renders in JupyterLab, on GitHub and in nbgrader's feedback alike.

Rebuild after a change:  python -m course_utils.qa.figure1   (then `course generate`)
"""
from __future__ import annotations

import base64
from dataclasses import dataclass
from html import escape
from pathlib import Path

FILE_NAME = "figure1.svg"


@dataclass(frozen=True)
class Block:
    key: str        # what a notebook marks
    label: str
    x: int
    y: int
    width: int = 150
    height: int = 34


# Encoder column at x=40, decoder column at x=290; y grows downwards, data flows upwards, and
# each Add & Norm sits just above the sublayer it wraps, as in the paper's figure.
BLOCKS = (
    Block("output", "Linear + softmax", 290, 50),
    Block("addnorm", "Add & Norm", 290, 120, height=24),
    Block("ffn", "Feed forward", 290, 152),
    Block("addnorm", "Add & Norm", 290, 194, height=24),
    Block("attention", "Multi-head attention", 290, 226),
    Block("addnorm", "Add & Norm", 290, 268, height=24),
    Block("masked", "Masked\nmulti-head attention", 290, 300),
    Block("addnorm", "Add & Norm", 40, 194, height=24),
    Block("ffn", "Feed forward", 40, 226),
    Block("addnorm", "Add & Norm", 40, 268, height=24),
    Block("attention", "Multi-head attention", 40, 300),
    Block("positional", "+ positional encoding", 40, 390),
    Block("positional", "+ positional encoding", 290, 390),
    Block("embedding", "Input embedding", 40, 440),
    Block("embedding", "Output embedding", 290, 440),
)
# (x, [(from y, to y), ...]) of the arrows between blocks, bottom to top.
ARROWS = (
    (115, ((500, 476), (440, 426), (390, 336), (300, 294), (268, 262), (226, 220))),
    (365, ((500, 476), (440, 426), (390, 336), (300, 294), (268, 262), (226, 220), (194, 188), (152, 146),
           (120, 86), (50, 28))),
)
FRAMES = ((25, 186, "Encoder"), (275, 108, "Decoder"))   # (x, top, name); both end at y=342

# Which blocks each notebook is about, and the sentence that says so.
MARKS = {
    "00_welcome": ((), "the whole model; each notebook marks its own part"),
    "01_queries_keys_values": (("attention", "masked"), "attention: queries, keys and values"),
    "02_scaled_dot_product_attention": (("attention", "masked"),
                                        "scaled dot-product attention, inside every attention block"),
    "03_multi_head_attention": (("attention", "masked"), "multi-head attention"),
    "04_masking": (("masked", "attention"), "the masks: padding everywhere, causal in the decoder"),
    "05_positional_encoding": (("positional", "embedding"), "embeddings and positional encoding"),
    "06_layer_norm_residual_ffn": (("addnorm", "ffn"), "Add & Norm and the feed-forward block"),
    "07_encoder_decoder": (("stacks", "output"), "both stacks, the output layer, training and decoding"),
    "08_efficient_attention": (("attention", "masked"), "attention made fast: fused kernels and a KV cache"),
}

WIDTH, HEIGHT = 480, 560


def _block(block: Block, marked: bool) -> str:
    fill = "url(#marked)" if marked else "#ffffff"
    stroke = 3.5 if marked else 1.2
    weight = "bold" if marked else "normal"
    lines = block.label.split("\n")
    cx, first = block.x + block.width / 2, block.y + block.height / 2 + 4 - 6.5 * (len(lines) - 1)
    spans = "".join(f'<tspan x="{cx}" y="{first + 13 * i}">{escape(line)}</tspan>' for i, line in enumerate(lines))
    return (f'<rect x="{block.x}" y="{block.y}" width="{block.width}" height="{block.height}" rx="5" '
            f'fill="{fill}" stroke="#000" stroke-width="{stroke}"/>'
            f'<text text-anchor="middle" font-weight="{weight}">{spans}</text>')


def _arrow(x: float, y1: float, y2: float) -> str:
    return f'<line x1="{x}" y1="{y1}" x2="{x}" y2="{y2}" stroke="#000" stroke-width="1.2" marker-end="url(#head)"/>'


def svg(aid: str) -> str:
    """The map for notebook `aid`, its blocks marked, as SVG text."""
    keys, about = MARKS[aid]
    stacks = "stacks" in keys
    body = []
    for frame_x, top, name in FRAMES:
        body.append(f'<rect x="{frame_x}" y="{top}" width="180" height="{342 - top}" rx="10" fill="none" '
                    f'stroke="#000" stroke-width="{3.5 if stacks else 1}" '
                    f'stroke-dasharray="{"none" if stacks else "5 4"}"/>')
        body.append(f'<text x="{frame_x + 4}" y="{top - 6}" font-style="italic">{name}</text>')
        side = frame_x - 4 if name == "Encoder" else frame_x + 184
        body.append(f'<text x="{side}" y="{(top + 342) / 2}" text-anchor="{"end" if name == "Encoder" else "start"}"'
                    f' font-weight="bold">N×</text>')
    for block in BLOCKS:
        body.append(_block(block, block.key in keys))
    for x, pairs in ARROWS:
        body.extend(_arrow(x, y1, y2) for y1, y2 in pairs)
    # The encoder's output is the memory: keys and values of the decoder's cross-attention.
    body.append('<path d="M115 194 L115 168 L250 168 L250 243 L286 243" fill="none" stroke="#000" '
                'stroke-width="1.2" marker-end="url(#head)"/>')
    body.append('<text x="115" y="518" text-anchor="middle">inputs (source)</text>')
    body.append('<text x="365" y="518" text-anchor="middle">outputs, shifted right</text>')
    body.append('<text x="365" y="20" text-anchor="middle">output probabilities</text>')
    caption = f"Notebook {aid[:2]}: {about}" if keys else f"The Transformer ({about})"
    body.append(f'<text x="{WIDTH / 2}" y="{HEIGHT - 12}" text-anchor="middle" font-weight="bold">'
                f'{escape(caption)}</text>')
    marked = ", ".join(sorted({b.label.replace("\n", " ") for b in BLOCKS if b.key in keys})) or "nothing"
    description = (f"The encoder-decoder Transformer of Vaswani et al. (2017), Figure 1, redrawn. "
                   f"Marked for notebook {aid[:2]}: {marked}" + ("; and both stacks." if stacks else "."))
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" '
            f'height="{HEIGHT}" font-family="sans-serif" font-size="12" role="img">\n'
            f'<title>{escape(caption)}</title>\n<desc>{escape(description)}</desc>\n'
            '<defs><pattern id="marked" width="8" height="8" patternUnits="userSpaceOnUse" '
            'patternTransform="rotate(45)"><rect width="8" height="8" fill="#e6e6e6"/>'
            '<line x1="0" y1="0" x2="0" y2="8" stroke="#9a9a9a" stroke-width="2"/></pattern>'
            '<marker id="head" markerWidth="8" markerHeight="8" refX="7" refY="4" orient="auto">'
            '<path d="M0,0 L8,4 L0,8 z" fill="#000"/></marker></defs>\n'
            '<rect width="100%" height="100%" fill="#ffffff"/>\n' + "\n".join(body) + "\n</svg>\n")


def alt_text(aid: str) -> str:
    """The Markdown alt text of notebook `aid`'s map."""
    keys, about = MARKS[aid]
    return f"Figure 1 of the paper redrawn as the course's map; marked: {about}" if keys else \
        "Figure 1 of the paper redrawn as the course's map: the whole encoder-decoder Transformer"


def markdown(aid: str) -> str:
    """The Markdown line a notebook shows its map with."""
    return f"![{alt_text(aid)}](attachment:{FILE_NAME})"


def attachments(aid: str) -> dict:
    """The map as a Markdown cell's `attachments` (nbformat: name -> {mime type: base64})."""
    return {FILE_NAME: {"image/svg+xml": base64.b64encode(svg(aid).encode()).decode()}}


def update_notebook(path: Path, aid: str) -> bool:
    """Give the map cell of the notebook at `path` (the cell that shows the map) today's drawing."""
    from course_utils import ipynb

    nb = ipynb.read(path)
    cell = next(c for c in nb.cells if c.cell_type == "markdown" and f"attachment:{FILE_NAME}" in c.source)
    if cell.get("attachments") == attachments(aid):
        return False
    cell["attachments"] = attachments(aid)
    ipynb.write(nb, path)
    return True


if __name__ == "__main__":
    root = Path.cwd()
    for aid in MARKS:
        path = root / "solutions" / aid / f"{aid}.ipynb"
        print(("updated " if update_notebook(path, aid) else "unchanged ") + str(path))
