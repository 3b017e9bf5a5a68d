"""`course validate` and the Validate button: run a notebook as the grader will, and point at the cause.

For students. nbgrader's own Validator reports each failing test cell by its source, so a
typo in an answer cell shows up as a `NameError` in every test cell below it, and all the
tests of a notebook read alike. `CourseValidator` runs the notebook exactly as nbgrader's
Validator does (same preprocessors, same pass/fail rule for test cells) and only describes
the result differently:

1. an error in an answer cell comes first, named by its exercise, with its line;
2. a failing test is named by the exercise it tests (the answer cell above it), with its
   points, and, when the answer cell itself failed or still holds its placeholder, says so
   instead of repeating the symptom;
3. an error in a cell that is not graded is a warning: the grader runs every cell in order,
   so the notebook will not run cleanly when graded.

The result keeps the keys and fields of nbgrader's (`failed` entries with `source`, `error`
as HTML and `raw_error`), so nbgrader's Validate dialog in JupyterLab shows it unchanged.
This module is also a Jupyter server extension (`course lab` enables it) that answers the
dialog's request with `CourseValidator` in place of nbgrader's Validator.
"""
from __future__ import annotations

import argparse
import html
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from course_utils.course import CONFIG_FILE, Course, CourseError, find_root
from course_utils.ipynb import nbgrader_meta, strip_ansi
from course_utils.notebook.progress import Exercises

if TYPE_CHECKING:
    from nbformat import NotebookNode

# ipykernel warns on stderr that its local TCP sockets are unencrypted; the student can do
# nothing about it, and the warning was the first line `course validate` printed.
WIDTH = 88  # characters of a line of the results, as nbgrader's Validator wraps its own
TITLE_WIDTH = 64  # the dialog's unwrapped <pre> of titles must fit its narrowest width
QUIET_KERNEL = ["--HistoryManager.hist_file=:memory:", "--IPKernelApp.log_level=ERROR"]


@dataclass
class Problem:
    """One thing the student should fix, most important first (`kind` orders them)."""
    kind: str          # "answer" (an answer cell raised), "test" (a graded test fails), "warning"
    title: str         # one line: which exercise, which cell, what happened
    detail: str        # the error's last lines, plain text

    def as_result(self) -> dict:
        """nbgrader's shape for a failed cell: the dialog shows `source`, then `error` (HTML).

        Both are wrapped here, and `raw_error` (what `course validate` prints) is the same text.
        The dialog puts `source` in a <pre> set with innerText (no HTML, no wrapping): its lines
        are kept short. `error` is set as innerHTML, so a span that wraps keeps a long hint whole
        whatever the dialog's width.
        """
        detail = wrap_lines(self.detail)
        return {"source": textwrap.fill(self.title, TITLE_WIDTH), "raw_error": detail, "kind": self.kind,
                "error": f'<span style="white-space: pre-wrap; overflow-wrap: anywhere">{html.escape(detail)}</span>'}


def wrap_lines(text: str, width: int = WIDTH) -> str:
    """Each line of `text` wrapped at `width`, continuation lines indented by two spaces."""
    return "\n".join(textwrap.fill(line, width, subsequent_indent="  ", break_on_hyphens=False) or line
                     for line in text.splitlines())


def section_of(nb: NotebookNode, index: int) -> str:
    """The heading of the section a cell sits in, as a student sees it ("" before the first heading)."""
    for cell in reversed(nb.cells[:index]):
        if cell.cell_type == "markdown":
            headings = [ln.lstrip("#").strip() for ln in cell.source.splitlines() if ln.startswith("#")]
            if headings:
                return headings[-1]
    return ""


def place_of(nb: NotebookNode, index: int) -> str:
    """Where a cell is, in words a student can find it by: its section, and its first line of code."""
    section = section_of(nb, index)
    first = next((ln.strip() for ln in nb.cells[index].source.splitlines()
                  if ln.strip() and not ln.lstrip().startswith("#") and "checks.testing(" not in ln), "")
    first = first if len(first) <= 50 else first[:47] + "..."
    where = f"in section '{section}'" if section else "before the first section"
    return f"{where}, the cell that starts `{first}`" if first else where


def _errors(cell) -> list[dict]:
    return [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]


def _error_text(output: dict) -> str:
    text = _last_lines(strip_ansi("\n".join(output.get("traceback", []))))
    return text or f"{output.get('ename')}: {output.get('evalue')}"


def _line_of(output: dict) -> int | None:
    """The line of the cell where the error happened (the first frame that names a cell's line)."""
    text = strip_ansi("\n".join(output.get("traceback", [])))
    match = re.search(r"Cell In ?\[[^\]]*\], line (\d+)", text) or re.search(r"line (\d+)", text)
    return int(match.group(1)) if match else None


def diagnose(nb: NotebookNode, failed_tests: list[tuple[int, str]]) -> list[Problem]:
    """What to fix in an executed notebook, most important first.

    `failed_tests` are (cell index, error text) of the graded test cells that lose points,
    as nbgrader's Validator decides it (an error, a message on stderr, partial credit).
    """
    exercises = Exercises(nb)
    answers, tests, warnings = [], [], []
    broken, unanswered = set(), set()
    for exercise, index in exercises.answers.items():
        if exercises.unanswered(exercise):
            unanswered.add(exercise)
        for output in _errors(nb.cells[index]):
            if output.get("ename") == "NotImplementedError":
                unanswered.add(exercise)
                continue
            broken.add(exercise)
            line = _line_of(output)
            where = f" at line {line}" if line else ""
            answers.append(Problem("answer", f"Your answer to {exercise} raised {output.get('ename')}{where} "
                                   f"(answer cell '{exercise}'). Fix it first: the tests below it "
                                   "cannot use what the cell did not define.", _error_text(output)))

    def cause(text: str) -> str | None:
        """The failed or unanswered exercise an error comes from, when it names one."""
        match = re.search(r"NameError: name '(\w+)' is not defined", text)
        if match and match.group(1) in broken | unanswered:
            return match.group(1)
        if "NotImplementedError" in text:  # a placeholder raised: which one, if the traceback says
            named = [e for e in sorted(unanswered) if re.search(rf"\b{re.escape(e)}\b", text)]
            return named[0] if named else "an exercise you have not answered yet"
        return None

    failing_exercises = {exercises.owner.get(index) for index, _ in failed_tests} - {None}

    def ran_through(text: str, source: str) -> tuple[str, bool] | None:
        """(the exercise whose tests fail that an ungraded cell's error came through, whether its
        traceback shows the exercise's own code raising); None when it names none."""
        for exercise in sorted(failing_exercises):
            # IPython names a frame "Cell In[5], line 12, in LayerNorm.forward(self, x)".
            if re.search(rf"\bin {re.escape(exercise)}\b(\.\w+)?\(", text):
                return exercise, True
        used = [e for e in sorted(failing_exercises) if re.search(rf"\b{re.escape(e)}\b", source)]
        return (used[0], False) if used else None

    for index, error in failed_tests:
        meta = nbgrader_meta(nb.cells[index])
        exercise = exercises.owner.get(index)
        about = f"{exercise} ({exercises.worth(exercise)})" if exercise else "the notebook"
        section = section_of(nb, index)
        title = f"A test of {about} fails" + (f" (section '{section}')." if section else ".")
        source = cause(error)
        if source not in broken | unanswered and (source is None or exercise in unanswered):
            source = exercise
        if source is not None and source != exercise and source not in broken | unanswered:
            title += f" It uses {source}."
        elif source in unanswered:
            title += f" You have not answered {source} yet: its answer cell still raises NotImplementedError."
        elif source in broken:
            title += f" The answer cell of {source} raised an error (reported above): fix that first."
        tests.append(Problem("test", title, error))
    consequences: dict[str, list[int]] = {}
    for index, cell in enumerate(nb.cells):
        meta = nbgrader_meta(cell)
        if cell.cell_type != "code" or meta.get("grade") or meta.get("solution"):
            continue
        for output in _errors(cell):
            text = _error_text(output)
            if cause(text):
                consequences.setdefault(cause(text), []).append(index)
                continue
            line = _line_of(output)
            where = f" at line {line}" if line else ""
            traced = ran_through(strip_ansi("\n".join(output.get("traceback", []))), cell.source)
            because = ""
            if traced is not None:
                exercise, inside = traced
                because = (f" The error came from your {exercise}, whose test fails above: fix {exercise} "
                           "first, then run this cell again." if inside else
                           f" This cell uses {exercise}, whose test fails above: fix {exercise} first, then "
                           "run this cell again.")
            warnings.append(Problem(
                "warning", f"Warning: a cell that is not graded ({place_of(nb, index)}) raised "
                f"{output.get('ename')}{where}.{because or ' The grader runs every cell in order, so the notebook will not run cleanly when graded, and later cells may fail because of it.'}", text))
    for exercise, cells in consequences.items():
        sections = list(dict.fromkeys(section_of(nb, i) or "before the first section" for i in cells))
        warnings.append(Problem(
            "warning", f"Warning: {len(cells)} cell(s) that are not graded (in section(s) "
            f"{', '.join(repr(s) for s in sections)}) fail because of {exercise}; they will run "
            "once its answer cell does.", ""))
    if unanswered and not tests:  # an unanswered exercise whose tests still pass is still unanswered
        tests.extend(Problem("test", f"You have not answered {e} yet ({exercises.worth(e)}).", "")
                     for e in sorted(unanswered))
    return answers + tests + warnings


def _config_near(path: Path):
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    try:
        root = find_root(path.parent)
    except CourseError:
        config = Config()  # a notebook outside the course: nbgrader's defaults
    else:
        config = PyFileConfigLoader(CONFIG_FILE, path=str(root)).load_config()
    return config


def course_validator_class() -> type:
    """`CourseValidator`, built on first use: nbgrader is imported only when a notebook is validated."""
    from nbformat import current_nbformat
    from nbformat import read as read_nb
    from nbgrader import utils
    from nbgrader.validator import Validator

    class CourseValidator(Validator):
        """nbgrader's Validator with results that name exercises and causes (see the module docstring)."""

        def validate(self, filename: str) -> dict:
            if self.invert:
                return super().validate(filename)
            path = Path(filename).resolve()
            with utils.chdir(str(path.parent)):
                nb = read_nb(path.name, as_version=current_nbformat)
            if self._get_type_changed_cells(nb):
                return super().validate(filename)  # nbgrader's message says exactly what to undo
            with utils.chdir(str(path.parent)):
                nb = self._preprocess(nb)
            changed = self._get_changed_cells(nb)
            if changed and not self.ignore_checksums:
                return {"changed": [{"source": cell.source.strip()} for cell in changed]}
            index = {id(cell): i for i, cell in enumerate(nb.cells)}
            failed = [(index[id(cell)], strip_ansi(self._extract_error(cell)))
                      for cell in self._get_failed_cells(nb)]
            failed = [(i, _last_lines(text)) for i, text in failed]
            problems = diagnose(nb, failed)
            return {"failed": [p.as_result() for p in problems]} if problems else {}

    return CourseValidator


def _last_lines(text: str, last: int = 4) -> str:
    """The last `last` lines of an error that say something (no blank lines, no rules of dashes)."""
    lines = [ln for ln in text.rstrip().splitlines() if ln.strip() and not set(ln.strip()) <= {"-"}]
    return "\n".join(lines[-last:])


def validate(path: str | Path, invert: bool = False) -> dict:
    """Run the notebook as nbgrader's Validate does; return the result dictionary.

    Keys: `failed` (the problems, most important first: answer cells that raised, tests that
    fail, warnings about ungraded cells), `changed` (locked cells edited), `type_changed`,
    and with invert=True `passed` (tests that pass although they should not).
    """
    path = Path(path).resolve()
    if not path.is_file():
        raise CourseError(f"No notebook at {path}. Give the path of a .ipynb file, e.g. "
                          "notebooks/01_queries_keys_values/01_queries_keys_values.ipynb.")
    config = _config_near(path)
    config.Execute.extra_arguments = QUIET_KERNEL
    validator = course_validator_class()(config=config)
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
    fails = [p for p in failed if p.get("kind") != "warning"]
    lines = [] if fails else ["Success! Every visible test passes. (Hidden tests run when you are graded.)"]
    if fails:
        lines.append(f"{len(fails)} problem(s) to fix, the first one first:")
    for problem in failed:
        first, *rest = problem["source"].splitlines() or [""]
        lines.append(f"  - {first}")
        lines.extend(f"    {line}" for line in rest)
        lines.extend(f"      {line}" for line in problem["raw_error"].splitlines())
    return lines


def failing(results: dict, invert: bool = False) -> bool:
    """Whether the result means the notebook is not ready to hand in (warnings alone do not)."""
    if results.get("type_changed") or results.get("changed"):
        return True
    if invert:
        return bool(results.get("passed"))
    return any(p.get("kind") != "warning" for p in results.get("failed", []))


def run(args: argparse.Namespace, course: Course | None) -> int:
    results = validate(args.path, invert=args.invert)
    for line in describe(results, invert=args.invert):
        print(line)
    return 1 if failing(results, invert=args.invert) else 0


def add_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser("validate", help="check one notebook as the Validate button does")
    p.add_argument("path", type=Path, help="the notebook to validate")
    p.add_argument("--invert", action="store_true", help="report tests that pass (for blank releases)")
    p.set_defaults(run=run, needs_course=False)
    return p


# The Validate button: a Jupyter server extension whose handler answers the dialog's request.

def _jupyter_server_extension_points() -> list[dict]:
    return [{"module": "course_utils.cli.validate"}]


def _load_jupyter_server_extension(serverapp) -> None:
    """Answer `/assignments/validate` with CourseValidator, ahead of nbgrader's own handler."""
    from jupyter_server.utils import url_path_join
    from nbgrader.server_extensions.validate_assignment.handlers import ValidateAssignmentHandler
    from tornado.routing import PathMatches, Rule

    class CourseValidateHandler(ValidateAssignmentHandler):
        def validate_notebook(self, path: str) -> dict:
            root = Path(self.root_dir).resolve()
            target = (root / path).resolve()
            if not target.is_relative_to(root):
                return super().validate_notebook(path)  # nbgrader refuses it (403)
            try:
                return {"success": True, "value": validate(target)}
            except Exception:  # noqa: BLE001  nbgrader's handler says what went wrong, as before
                return super().validate_notebook(path)

    webapp = serverapp.web_app
    pattern = url_path_join(webapp.settings["base_url"], "/assignments/validate")
    # Tornado tries rules in order and nbgrader's extension may load first: go to the front.
    webapp.default_router.rules.insert(0, Rule(PathMatches(pattern), CourseValidateHandler))
    serverapp.log.info("Attention, Graded: the Validate button names exercises and causes")
