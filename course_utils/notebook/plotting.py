"""The figures the notebooks draw: attention heatmaps and labelled line plots.

Colour maps are perceptually uniform (viridis, cividis), so the figures stay readable
in grayscale, and every figure gets a title and axis labels.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes


def _to_numpy(values: object) -> np.ndarray:
    if hasattr(values, "detach"):
        values = values.detach().float().cpu().numpy()
    return np.asarray(values, dtype=float)


def attention_heatmap(weights: object, query_labels: list[str] | None = None, key_labels: list[str] | None = None,
                      title: str = "Attention weights", ax: Axes | None = None, annotate: bool | None = None,
                      cmap: str = "viridis", vmin: float = 0.0, vmax: float | None = None) -> Axes:
    """Draw a (Lq, Lk) matrix of attention weights: one row per query, one column per key."""
    grid = _to_numpy(weights)
    if grid.ndim != 2:
        raise ValueError(f"attention_heatmap needs a 2-D (queries, keys) matrix; got shape {grid.shape}. "
                         "Select one batch item and one head first, e.g. weights[0, 0].")
    if ax is None:
        _, ax = plt.subplots(figsize=(1.0 + 0.55 * grid.shape[1], 1.0 + 0.45 * grid.shape[0]))
    image = ax.imshow(grid, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
    ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    ax.set_title(title)
    ax.set_xlabel("key (attended to)")
    ax.set_ylabel("query (attending)")
    if key_labels is not None:
        ax.set_xticks(range(len(key_labels)), labels=list(key_labels), rotation=45, ha="right")
    if query_labels is not None:
        ax.set_yticks(range(len(query_labels)), labels=list(query_labels))
    if annotate is None:
        annotate = grid.size <= 64
    if annotate:
        middle = (np.nanmax(grid) + np.nanmin(grid)) / 2 if grid.size else 0
        for (row, col), value in np.ndenumerate(grid):
            ax.text(col, row, f"{value:.2f}", ha="center", va="center", fontsize=8,
                    color="black" if value > middle else "white")
    return ax


def line_plot(x: object, series: dict[str, object], title: str, xlabel: str, ylabel: str, ax: Axes | None = None,
              logy: bool = False, markers: bool = True) -> Axes:
    """Plot one or more named curves over a shared x axis, with a legend."""
    if ax is None:
        _, ax = plt.subplots()
    # Each curve gets its own (line style, marker) pair, so the legend still reads in grayscale
    # with any number of curves: past the four line styles, markers tell the curves apart.
    styles = ["-", "--", ":", "-."]
    shapes = ["o", "s", "^", "D", "v", "x"] if markers else [None, "o", "s", "^", "D", "v", "x"]
    xs = _to_numpy(x)
    for i, (name, y) in enumerate(series.items()):
        marker = shapes[(i // len(styles)) % len(shapes)]
        ax.plot(xs, _to_numpy(y), styles[i % len(styles)], marker=marker, markersize=3, label=name,
                markevery=None if markers else max(1, len(xs) // 12))
    if logy:
        ax.set_yscale("log")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if len(series) > 1:
        ax.legend()
    ax.grid(alpha=0.3)
    return ax
