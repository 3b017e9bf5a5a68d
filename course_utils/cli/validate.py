"""`course validate`: what JupyterLab's Validate button does, from a terminal (students' tool)."""
from __future__ import annotations

import argparse
from pathlib import Path

from course_utils.course import CONFIG_FILE, Course, CourseError, find_root
from course_utils.ipynb import strip_ansi


def _config_near(path: Path):
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    try:
        root = find_root(path.parent)
    except CourseError:
        return Config()  # a notebook outside the course: nbgrader's defaults
    return PyFileConfigLoader(CONFIG_FILE, path=str(root)).load_config()


def validate(path: str | Path, invert: bool = False) -> dict:
    """Run the notebook as nbgrader's Validate does; return nbgrader's result dictionary.

    Keys: `failed` (test cells that fail), `changed` (locked cells edited), `type_changed`,
    and with invert=True `passed` (tests that pass although they should not).
    """
    path = Path(path).resolve()
    if not path.is_file():
        raise CourseError(f"No notebook at {path}. Give the path of a .ipynb file, e.g. "
                          "notebooks/01_queries_keys_values/01_queries_keys_values.ipynb.")
    from nbgrader.validator import Validator

    validator = Validator(config=_config_near(path))
    validator.invert = invert
    return validator.validate(str(path))


def describe(results: dict, invert: bool = False) -> list[str]:
    """Lines a student can act on."""
    if results.get("type_changed"):
        return ["Some cells changed type (code <-> markdown); change them back:"] + \
               [f"  - {c['source'][:70]!r}" for c in results["type_changed"]]
    if results.get("changed"):
        return [f"{len(results['changed'])} locked cell(s) were edited. Undo those edits "
                "(or copy your answers into a fresh copy of the notebook):"] + \
               [f"  - {c['source'].splitlines()[0][:70]!r}" for c in results["changed"]]
    if invert:
        passed = results.get("passed", [])
        return [f"{len(passed)} test cell(s) pass on this notebook."]
    failed = results.get("failed", [])
    if not failed:
        return ["Success! Every visible test passes. (Hidden tests run when you are graded.)"]
    lines = [f"{len(failed)} test cell(s) fail:"]
    for cell in failed:
        first = cell["source"].splitlines()[0] if cell["source"] else "(empty cell)"
        error = strip_ansi(cell.get("raw_error") or "").strip().splitlines()
        lines.append(f"  - cell starting {first[:60]!r}")
        lines.extend(f"      {line}" for line in error[-3:])
    return lines


def run(args: argparse.Namespace, course: Course | None) -> int:
    results = validate(args.path, invert=args.invert)
    for line in describe(results, invert=args.invert):
        print(line)
    bad = results.get("type_changed") or results.get("changed") or results.get(
        "passed" if args.invert else "failed")
    return 1 if bad else 0


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("validate", help="check one notebook as the Validate button does")
    p.add_argument("path", type=Path, help="the notebook to validate")
    p.add_argument("--invert", action="store_true", help="report tests that pass (for blank releases)")
    p.set_defaults(run=run, needs_course=False)
    return p
