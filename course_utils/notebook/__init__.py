"""What a student's kernel loads: the notebooks' setup, checks, trusted references and figures.

Every notebook's locked setup cell imports from here, in one line:

    from course_utils.notebook import checks, trusted, setup_notebook, attention_heatmap, line_plot

It may import torch, NumPy, matplotlib and the standard library, and nothing else
of course_utils: the grader, QA and benchmark parts are instructor tools that a student's
kernel never needs (tests/test_layout.py reads the imports to keep it so). It holds no
exercise answer.
"""
from __future__ import annotations

import importlib

# Loaded on first use (PEP 562), so that a tool that needs only a constant of this package
# (the CLI's device choices) does not import torch and matplotlib. A notebook's setup cell
# names them all, which loads `checks`, and with it `trusted`, before any answer cell runs.
_EXPORTS = {
    "checks": ("course_utils.notebook.checks", None),
    "trusted": ("course_utils.notebook.trusted", None),
    "progress": ("course_utils.notebook.progress", None),
    "setup_notebook": ("course_utils.notebook.session", "setup_notebook"),
    "Session": ("course_utils.notebook.session", "Session"),
    "attention_heatmap": ("course_utils.notebook.plotting", "attention_heatmap"),
    "line_plot": ("course_utils.notebook.plotting", "line_plot"),
}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'course_utils.notebook' has no attribute {name!r}")
    module_name, attribute = _EXPORTS[name]
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value
