"""Record what every rendered figure says about itself, for the accessibility check of the notebooks.

When the environment variable COURSE_FIGURE_AUDIT names a file, `course execute` (and so
`course demo`) starts each notebook's kernel with KERNEL_ARGUMENT, which runs
`install_if_requested()` before the first cell: it wraps matplotlib's
`FigureCanvasBase.print_figure`, which the inline backend calls to render a figure (and
`savefig` calls too). Each render appends one JSON line to that file:

    {"notebook": "02_scaled_dot_product_attention", "cell": 12, "suptitle": "",
     "axes": [{"title": "...", "xlabel": "...", "ylabel": "...", "colorbar": false,
               "cmaps": ["viridis"], "lines": [[label, linestyle, marker], ...]}, ...]}

`course demo` executes every notebook with it set when tests/qa/test_demo.py runs the demo,
and that test reads it through problems(): every axes that is not a colorbar needs a title
(or the figure a suptitle) and both axis labels, every colour map must stay readable in
grayscale, no two labelled curves of one axes may share both line style and marker
(they would differ only by colour), and no text (a title, a label, a tick label, a legend)
may reach past the edge of the saved image, which would cut it. Without the variable nothing is patched or written, and
no student's or graded kernel ever imports this module.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ENV = "COURSE_FIGURE_AUDIT"
# An IPython kernel option: run the audit's installer once IPython is up, before any cell.
KERNEL_ARGUMENT = ('--IPKernelApp.exec_lines="import course_utils.qa.figure_audit as _audit; '
                   '_audit.install_if_requested()"')

# Colour maps whose lightness changes monotonically, so that they read correctly in grayscale
# (and for most colour-vision deficiencies): the perceptually uniform ones, the grays and the
# single-hue sequential ones. Rainbow-like maps (jet, rainbow, hsv, tab10...) and diverging maps
# (same lightness at both ends) are not. "_r" (reversed) variants are fine too.
GRAYSCALE_SAFE = frozenset({
    "viridis", "cividis", "plasma", "inferno", "magma",
    "gray", "grey", "Greys", "binary", "gist_gray", "gist_yarg", "bone",
    "Blues", "Greens", "Oranges", "Purples", "Reds",
})

_installed = {"path": None}


def grayscale_safe(name: str) -> bool:
    return (name[:-2] if name.endswith("_r") else name) in GRAYSCALE_SAFE


def _is_colorbar(ax):
    return getattr(ax, "_colorbar", None) is not None or ax.get_label() == "<colorbar>"


def _cmaps(ax):
    names = []
    for artist in list(ax.images) + list(ax.collections):
        cmap = getattr(artist, "get_cmap", None)
        if cmap is None:
            continue
        # A collection only uses its colour map when it maps data to colour (scatter with c=...).
        if artist in ax.collections and getattr(artist, "get_array", lambda: None)() is None:
            continue
        name = getattr(cmap(), "name", None)
        if name and name not in names:
            names.append(name)
    return names


def _labelled_lines(ax):
    """[label, linestyle, marker] of each line that has a legend label."""
    return [[line.get_label(), str(line.get_linestyle()), str(line.get_marker())] for line in ax.get_lines()
            if line.get_label() and not line.get_label().startswith("_")]


def texts_outside(figure: Figure) -> list[str]:
    """The visible texts of `figure` that reach past the edge of its canvas (a saved image would cut them).

    Laid out first, as a render would (a layout engine moves titles and labels), then each text
    artist's window extent is compared with the figure's box, with half a pixel of slack for rounding.
    """
    from matplotlib.text import Text

    figure.draw_without_rendering()
    get_renderer = getattr(figure.canvas, "get_renderer", None)
    renderer = get_renderer() if get_renderer is not None else figure._get_renderer()
    box = figure.bbox
    # An axis keeps labels for ticks just beyond its limits and never draws them.
    undrawn = set()
    for ax in figure.get_axes():
        for axis in ax._axis_map.values():
            low, high = sorted(axis.get_view_interval())
            slack = (high - low) * 1e-9
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - slack <= tick.get_loc() <= high + slack:
                    undrawn.update((id(tick.label1), id(tick.label2)))
    cut = []
    for text in figure.findobj(Text):
        if not text.get_visible() or not text.get_text().strip() or id(text) in undrawn:
            continue
        extent = text.get_window_extent(renderer)
        if (extent.x0 < box.x0 - 0.5 or extent.y0 < box.y0 - 0.5 or extent.x1 > box.x1 + 0.5
                or extent.y1 > box.y1 + 0.5):
            cut.append(text.get_text())
    return cut


def describe(figure: Figure, tight: bool = False) -> dict:
    """The title, labels and colour maps of each axes of `figure`, and its cut texts (a JSON-ready dict).

    `tight`: the render crops to what is drawn (bbox_inches="tight", as the inline backend does),
    so a text past the canvas's edge is kept whole and none is reported.
    """
    suptitle = figure._suptitle.get_text() if getattr(figure, "_suptitle", None) is not None else ""
    axes = []
    for ax in figure.get_axes():
        title = " ".join(t for t in (ax.get_title(loc) for loc in ("left", "center", "right")) if t)
        axes.append({"title": title, "xlabel": ax.get_xlabel(), "ylabel": ax.get_ylabel(),
                     "colorbar": _is_colorbar(ax), "cmaps": _cmaps(ax), "lines": _labelled_lines(ax)})
    return {"suptitle": suptitle, "axes": axes, "cut_texts": [] if tight else texts_outside(figure)}


def _crops_tight(kwargs: dict) -> bool:
    """Whether print_figure, called with `kwargs`, crops the image to what is drawn."""
    import matplotlib

    bbox = kwargs.get("bbox_inches")
    return (matplotlib.rcParams["savefig.bbox"] if bbox is None else bbox) == "tight"


def _cell_number():
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return getattr(shell, "execution_count", None) if shell is not None else None


def install(path: str | Path) -> None:
    """Record every figure rendered from now on into `path` (JSON lines). Idempotent."""
    from matplotlib.backend_bases import FigureCanvasBase

    _installed["path"] = str(path)
    if getattr(FigureCanvasBase.print_figure, "_course_audit", False):
        return
    original = FigureCanvasBase.print_figure

    def print_figure(self, *args, **kwargs):
        # papermill runs each notebook from its own folder, named like the notebook.
        where = {"notebook": Path.cwd().name, "cell": _cell_number()}
        try:
            record = {**where, **describe(self.figure, tight=_crops_tight(kwargs))}
        except Exception as error:  # noqa: BLE001  (the audit must never break a figure)
            record = {**where, "audit_error": repr(error)}
        try:
            with open(_installed["path"], "a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")
        except OSError:
            pass  # an unwritable audit file loses the record, never the student's figure
        return original(self, *args, **kwargs)

    print_figure._course_audit = True
    FigureCanvasBase.print_figure = print_figure


def install_if_requested() -> bool:
    """Install the audit when COURSE_FIGURE_AUDIT names a file; return whether it did."""
    path = os.environ.get(ENV)
    if not path:
        return False
    install(path)
    return True


def read(path: str | Path) -> list[dict]:
    """The records of an audit file, one figure rendered twice (two formats) kept once."""
    records, seen = [], set()
    for line in Path(path).read_text(encoding="utf-8").splitlines() if Path(path).exists() else []:
        if line not in seen:
            seen.add(line)
            records.append(json.loads(line))
    return records


def problems(record: dict) -> list[str]:
    """What one recorded figure lacks, as sentences (empty when it is fine)."""
    if "audit_error" in record:
        return [f"the audit failed: {record['audit_error']}"]
    found = []
    plots = [ax for ax in record["axes"] if not ax["colorbar"]]
    for i, ax in enumerate(plots):
        name = f"axes {i + 1} of {len(plots)} ({ax['title'] or record['suptitle'] or 'untitled'})"
        if not ax["title"] and not record["suptitle"]:
            found.append(f"{name} has no title (and the figure no suptitle)")
        for axis in ("xlabel", "ylabel"):
            if not ax[axis].strip():
                found.append(f"{name} has no {axis}")
        styles = {}
        for label, linestyle, marker in ax.get("lines", []):
            styles.setdefault((linestyle, marker), []).append(label)
        for same in styles.values():
            if len(same) > 1:
                found.append(f"{name}: lines {same} differ only by colour: give each its own linestyle or marker")
    for text in record.get("cut_texts", []):
        found.append(f"the text {text!r} reaches past the edge of the image, which cuts it: make room for it "
                     "(constrained or tight layout, a shorter text or a smaller font)")
    for ax in record["axes"]:
        for cmap in ax["cmaps"]:
            if not grayscale_safe(cmap):
                found.append(f"colour map {cmap!r} is not readable in grayscale: use viridis, cividis or gray")
    return found
