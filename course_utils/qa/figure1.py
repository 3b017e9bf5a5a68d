"""The course's map: the paper's Figure 1 redrawn, one PNG per notebook with its part marked.

For course authors. Every notebook opens with its map, carried inside the notebook as an
attachment of a Markdown cell (`attachment:figure1.png`): it travels wherever the notebook
goes (the release, the students' copy, nbgrader's exchange, the feedback HTML) without a file
beside it that nbgrader or a student's copy could lose. The drawing is generated here, not
drawn by hand, so that the nine copies stay identical except for what they mark;
tests/qa/test_figure1.py keeps each notebook's attachment equal to this module's output.

A PNG, not an SVG: JupyterLab renders a Markdown attachment only for raster types
("Cannot render unknown image mime type image/svg+xml"). The image is saved as 8-bit
greyscale, so it cannot depend on colour: a marked block is hatched, its frame is thick and
its label bold. A title and a description go into the PNG's text chunks, and the Markdown
cell carries alt text for screen readers.

Rebuild after a change:  python -m course_utils.qa.figure1   (then `course generate`)
"""
from __future__ import annotations

import base64
import io
from dataclasses import dataclass
from pathlib import Path

FILE_NAME = "figure1.png"
MIME = "image/png"
WIDTH, HEIGHT, DPI = 510, 560, 100   # pixels; the drawing's coordinates are pixels, y downwards
LEFT = -15                           # the x of the image's left edge: room for the encoder's "N×"
TITLE_MARGIN = 6                     # pixels kept free between the caption and each side of the image


@dataclass(frozen=True)
class Block:
    key: str        # what a notebook marks
    label: str
    x: int
    y: int
    width: int = 150
    height: int = 34


# Encoder column at x=40, decoder column at x=290; data flows upwards, and each Add & Norm sits
# just above the sublayer it wraps, as in the paper's figure.
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
FRAME_BOTTOM = 342

# Which blocks each notebook is about, and the sentence that says so. A key marks every block of
# that kind; "encoder:" or "decoder:" before it, only that stack's; "encoder" alone, the whole
# encoder stack (its frame drawn bold too), as "stacks" does for both.
MARKS = {
    "00_welcome": ((), "the whole model; each notebook marks its own part"),
    "01_queries_keys_values": (("attention", "masked"), "attention: queries, keys and values"),
    "02_scaled_dot_product_attention": (("attention", "masked"),
                                        "scaled dot-product attention, inside every attention block"),
    "03_multi_head_attention": (("attention", "masked"), "multi-head attention"),
    "04_masking": (("masked", "attention"), "the masks: padding everywhere, causal in the decoder"),
    "05_positional_encoding": (("positional", "embedding"), "embeddings and positional encoding"),
    "06_layer_norm_residual_ffn": (("addnorm", "ffn"), "Add & Norm and the feed-forward block"),
    "07_encoder_decoder": (("stacks", "output"), "both stacks, the output layer, training and greedy decoding"),
    "08_decoding_and_evaluation": (("output",), "what the output layer's probabilities are searched for, and scored"),
    "09_efficient_attention": (("attention", "masked"), "attention made fast: fused kernels and a KV cache"),
    "10_decoder_only": (("masked", "decoder:ffn", "decoder:addnorm", "output"),
                        "the decoder stack without cross-attention: a language model and a recommender"),
    "11_encoder_only": (("encoder",), "the encoder stack alone: masked tokens and sentence embeddings"),
}

GREY_FILL, GREY_HATCH = "#e6e6e6", "#8c8c8c"


def stack_of(block: Block) -> str:
    return "encoder" if block.x == 40 else "decoder"


def marks(block: Block, keys: tuple[str, ...]) -> bool:
    """Whether `keys` (a notebook's MARKS) mark `block`."""
    stack = stack_of(block)
    return block.key in keys or f"{stack}:{block.key}" in keys or stack in keys


def marked_blocks(aid: str) -> list[Block]:
    """The blocks notebook `aid`'s map marks."""
    keys, _ = MARKS[aid]
    return [block for block in BLOCKS if marks(block, keys)]


def caption(aid: str) -> str:
    """The line under notebook `aid`'s map, and the PNG's title."""
    keys, about = MARKS[aid]
    return f"Notebook {aid[:2]}: {about}" if keys else f"The Transformer ({about})"


def alt_text(aid: str) -> str:
    """The Markdown alt text of notebook `aid`'s map: what it shows and what it marks."""
    keys, about = MARKS[aid]
    if not keys:
        return "Figure 1 of the paper redrawn as the course's map: the whole encoder-decoder Transformer"
    marked = ", ".join(sorted({b.label.replace("\n", " ") for b in marked_blocks(aid)}))
    stacks = " and both stacks" if "stacks" in keys else " and the encoder stack" if "encoder" in keys else ""
    return f"Figure 1 of the paper redrawn as the course's map; marked: {marked}{stacks} ({about})"


def _draw(aid: str):
    # matplotlib's object API, not pyplot: no global figure state, no backend to choose.
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyBboxPatch

    keys, _ = MARKS[aid]
    fig = Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI, facecolor="white")
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(LEFT, LEFT + WIDTH)
    ax.set_ylim(HEIGHT, 0)
    ax.axis("off")
    arrow = dict(arrowstyle="-|>", color="black", lw=1.2, shrinkA=0, shrinkB=0, mutation_scale=10)

    for x, top, name in FRAMES:
        stacks = "stacks" in keys or name.lower() in keys
        ax.add_patch(FancyBboxPatch((x, top), 180, FRAME_BOTTOM - top, boxstyle="round,pad=0,rounding_size=10",
                                    facecolor="none", edgecolor="black", lw=3.5 if stacks else 1.0,
                                    linestyle="-" if stacks else (0, (5, 4))))
        ax.text(x + 4, top - 6, name, style="italic", fontsize=9, va="bottom")
        encoder = name == "Encoder"
        ax.text(x - 4 if encoder else x + 184, (top + FRAME_BOTTOM) / 2, "N×", fontsize=10, weight="bold",
                ha="right" if encoder else "left", va="center")
    for block in BLOCKS:
        marked = marks(block, keys)
        box = dict(boxstyle="round,pad=0,rounding_size=5")
        if marked:   # the hatch in grey under a black frame, so the label stays readable
            ax.add_patch(FancyBboxPatch((block.x, block.y), block.width, block.height, facecolor=GREY_FILL,
                                        edgecolor=GREY_HATCH, hatch="////", lw=0, **box))
        ax.add_patch(FancyBboxPatch((block.x, block.y), block.width, block.height, facecolor="none" if marked
                                    else "white", edgecolor="black", lw=3.0 if marked else 1.2, **box))
        ax.text(block.x + block.width / 2, block.y + block.height / 2, block.label, ha="center", va="center",
                fontsize=8.5, weight="bold" if marked else "normal", linespacing=1.1,
                bbox=dict(facecolor=GREY_FILL, edgecolor="none", pad=0.5) if marked else None)
    for x, pairs in ARROWS:
        for y1, y2 in pairs:
            ax.annotate("", xy=(x, y2), xytext=(x, y1), arrowprops=arrow)
    # The encoder's output is the memory: keys and values of the decoder's cross-attention.
    ax.plot([115, 115, 250, 250], [194, 168, 168, 243], color="black", lw=1.2)
    ax.annotate("", xy=(286, 243), xytext=(250, 243), arrowprops=arrow)
    ax.text(115, 518, "inputs (source)", ha="center", va="center", fontsize=9)
    ax.text(365, 518, "outputs, shifted right", ha="center", va="center", fontsize=9)
    ax.text(365, 16, "output probabilities", ha="center", va="center", fontsize=9)
    title = ax.text(LEFT + WIDTH / 2, HEIGHT - 14, caption(aid), ha="center", va="center", fontsize=9.5,
                    weight="bold")
    _fit_width(fig, title, WIDTH - 2 * TITLE_MARGIN)
    return fig


def _fit_width(fig, text, width: float) -> None:
    """Shrink `text`'s font until it is at most `width` pixels wide, so a long caption is not cut at the edges."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()   # the renderer savefig's PNG uses, so the widths agree
    while text.get_window_extent(renderer).width > width and text.get_fontsize() > 6:
        text.set_fontsize(text.get_fontsize() - 0.25)


def png(aid: str) -> bytes:
    """The map of notebook `aid` as 8-bit greyscale PNG bytes (the same bytes on every run)."""
    from PIL import Image
    from PIL.PngImagePlugin import PngInfo

    buffer = io.BytesIO()
    _draw(aid).savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    image = Image.open(buffer).convert("L")
    info = PngInfo()   # fixed text only: no date or version, so a rebuild changes no byte
    info.add_text("Title", caption(aid))
    info.add_text("Description", alt_text(aid))
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True, pnginfo=info)
    return out.getvalue()


def markdown(aid: str) -> str:
    """The map cell's Markdown: the image with its alt text, and a caption saying what the map is."""
    return (f"![{alt_text(aid)}](attachment:{FILE_NAME})\n\n"
            "*The paper's Figure 1, redrawn as the course's map: every notebook shows it with its own part "
            "marked (hatched, framed in bold).*")


def attachments(aid: str) -> dict:
    """The map as a Markdown cell's `attachments` (nbformat: name -> {mime type: base64})."""
    return {FILE_NAME: {MIME: base64.b64encode(png(aid)).decode()}}


def _map_cell(nb) -> dict | None:
    """The notebook's map cell (the Markdown cell that shows the map), or None."""
    return next((c for c in nb.cells if c.cell_type == "markdown" and f"attachment:{FILE_NAME}" in c.source), None)


def update_notebook(path: Path, aid: str) -> bool:
    """Put today's map into the notebook at `path`, right after its opening cell; True when it changed."""
    import nbformat

    from course_utils import ipynb

    nb = ipynb.read(path)
    cell = _map_cell(nb)
    if cell is None:
        cell = nbformat.v4.new_markdown_cell(id="course-map")
        nb.cells.insert(1, cell)
    fresh = {"source": markdown(aid), "attachments": attachments(aid)}
    if all(cell.get(key) == value for key, value in fresh.items()):
        return False
    cell.update(fresh)
    ipynb.write(nb, path)
    return True


if __name__ == "__main__":
    root = Path.cwd()
    for aid in MARKS:
        path = root / "solutions" / aid / f"{aid}.ipynb"
        print(("updated " if update_notebook(path, aid) else "unchanged ") + str(path))
