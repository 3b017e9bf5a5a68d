"""Readings written by the run: the sentences of a notebook that state its numbers.

For students, who compare the text with what their run printed. A paragraph that quotes a
measurement ("SASRec's NDCG@10 is 0.597, the bigram's 0.599") is true only of the run that made
it; on another seed, machine or answer it misleads. So the notebooks write such sentences from
the run's own results, in a code cell after the table (`reading`), and compare with `ahead`, which
says which of two numbers is ahead only when the gap is larger than the noise the caller names.
Text that explains *why* stays in Markdown, written so that it holds whichever way the run went.
"""
from __future__ import annotations

from collections.abc import Iterable


def ahead(first: tuple[str, float], second: tuple[str, float], noise: float, unit: str = "", fmt: str = ".3f",
          beyond: bool = False) -> str:
    """A clause comparing two named numbers: which is ahead and by how much, or that they are level
    (the gap within `noise`, e.g. a standard error or a tolerance across thread counts). `fmt` formats
    the numbers (".1%" for shares); `beyond` also names the noise when one is ahead."""
    (a_name, a), (b_name, b) = first, second
    gap = abs(a - b)
    if gap <= noise:
        return (f"{a_name} and {b_name} are level ({a:{fmt}} against {b:{fmt}}{unit}, a gap within the noise of "
                f"{noise:{fmt}})")
    (high_name, high), (low_name, low) = (first, second) if a > b else (second, first)
    past = f", beyond the noise of {noise:{fmt}}" if beyond else ""
    return f"{high_name} is ahead of {low_name} ({high:{fmt}} against {low:{fmt}}{unit}{past})"


def noise_of_means(means: Iterable[float], count: int) -> float:
    """Two standard errors of a mean of `count` values in [0, 1] (a share, a hit rate, an NDCG), for the widest
    of `means`: a value in [0, 1] with mean m has a standard deviation of at most sqrt(m (1 - m)). A single
    run cannot tell apart two such means closer than this."""
    return 2 * max((m * (1 - m) / count) ** 0.5 for m in means)


def reading(text: str) -> None:
    """Show `text` (Markdown) as this cell's reading: rendered in JupyterLab, plain text elsewhere."""
    show({"text/markdown": text, "text/plain": text})


def show(bundle: dict[str, str]) -> None:
    """Display a bundle of representations in IPython, or print its text/plain outside it (where
    IPython's display would print the dict)."""
    if _shell() is None:
        print(bundle["text/plain"])
        return
    from IPython.display import display

    display(bundle, raw=True)


def _shell() -> object | None:
    """The running IPython shell, or None (a plain Python process). Private: the screen's allowlist
    takes this module's public names, and student code must not reach IPython's machinery."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()
