"""Where a student stands in a notebook: its exercises, their points, which pass their visible tests.

For students. The last cell of every notebook calls `summary()`, which reads the notebook's
own file (the kernel runs in its folder), runs each exercise's visible test cells again in
the notebook's namespace and prints one line per exercise. `course validate` and the
Validate button use `Exercises` to name the exercise a failing test belongs to and its points.

The notebook file is read as JSON, with the standard library: nbgrader's metadata is all
this needs, and the student's kernel imports no notebook tooling.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path

# The start of what the release leaves in an answer cell (ClearSolutions.code_stub in
# nbgrader_config.py); an answer may raise NotImplementedError for reasons of its own.
STUB = 'raise NotImplementedError("Write your answer'



def _meta(cell: dict) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def is_code(source: str) -> bool:
    """True when a cell holds something besides comments and blank lines (a hidden test cell does not)."""
    return any(line.strip() and not line.strip().startswith("#") for line in source.splitlines())


def visible_part(source: str) -> str:
    """A test cell's source without its hidden blocks: what the student's copy holds of it.

    The instructor's notebooks (solutions/) still hold the hidden tests that the release
    strips; the summary and the points treat both copies alike.
    """
    kept, hidden = [], False
    for line in source.splitlines():
        if line.strip() == "### BEGIN HIDDEN TESTS":
            hidden = True
        elif line.strip() == "### END HIDDEN TESTS":
            hidden = False
        elif not hidden:
            kept.append(line)
    return "\n".join(kept)


def _points(points: float) -> str:
    return f"{points:g} point" + ("" if points == 1 else "s")


class Exercises:
    """Which exercise each cell of a notebook belongs to, and what each exercise is worth.

    An exercise is an answer cell (nbgrader `solution`) and the graded test cells after it,
    up to the next answer cell. In the student's copy a test cell whose code was removed at
    release (a comment is left; its hidden tests come back at grading) counts as hidden.
    """

    def __init__(self, nb: dict) -> None:
        self.cells = nb.get("cells", [])
        self.owner: dict[int, str] = {}      # cell index -> exercise (grade_id of its answer cell)
        self.answers: dict[str, int] = {}    # exercise -> index of its answer cell
        self.tests: dict[str, list[int]] = {}  # exercise -> indices of its visible test cells
        self.visible: dict[str, float] = {}
        self.hidden: dict[str, float] = {}
        current = None
        for index, cell in enumerate(self.cells):
            meta = _meta(cell)
            if meta.get("solution") and meta.get("grade_id") and cell.get("cell_type") == "code":
                current = meta["grade_id"]
                self.answers[current] = index
                for table in (self.tests, self.visible, self.hidden):
                    table.setdefault(current, [] if table is self.tests else 0)
            if current is not None:
                self.owner[index] = current
            if current is not None and meta.get("grade") and not meta.get("solution"):
                if is_code(visible_part(_source(cell))):
                    self.visible[current] += float(meta.get("points") or 0)
                    self.tests[current].append(index)
                else:
                    self.hidden[current] += float(meta.get("points") or 0)

    def worth(self, exercise: str) -> str:
        visible, hidden = self.visible.get(exercise, 0), self.hidden.get(exercise, 0)
        return f"{_points(visible + hidden)}: {visible:g} visible + {hidden:g} hidden"

    def unanswered(self, exercise: str) -> bool:
        """Whether the answer cell still holds the release's placeholder."""
        return STUB in _source(self.cells[self.answers[exercise]])


def _this_notebook(folder: Path) -> Path | None:
    """The notebook the kernel runs: <folder name>.ipynb, else the only notebook in the folder."""
    named = folder / f"{folder.name}.ipynb"
    if named.is_file():
        return named
    found = sorted(folder.glob("*.ipynb"))
    return found[0] if len(found) == 1 else None


def _run_test(source: str, namespace: dict) -> str | None:
    """Run a visible test cell's code in the notebook's namespace; None if it passes, else why not."""
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            exec(compile(source, "<visible test>", "exec"), namespace)  # noqa: S102  the student's own notebook
    except Exception as error:  # noqa: BLE001  any failure is a line of the summary
        first = str(error).strip().splitlines()[0] if str(error).strip() else ""
        return f"{type(error).__name__}: {first}"[:110]
    return None


def standing(path: str | Path | None = None, namespace: dict | None = None) -> list[tuple[str, str, str]]:
    """(exercise, points, status) for each exercise of the notebook at `path`, tests run in `namespace`.

    `path` defaults to the notebook in the kernel's folder, as last saved (its metadata is
    all that is read; the answers are the ones the kernel has run); `namespace` to the
    notebook's own names.
    """
    notebook = Path(path) if path else _this_notebook(Path.cwd())
    if notebook is None or not notebook.is_file():
        raise FileNotFoundError("No notebook found next to this kernel: run this cell from the course notebook itself.")
    if namespace is None:
        from IPython import get_ipython  # the kernel's namespace, where the answers live
        shell = get_ipython()
        namespace = shell.user_ns if shell is not None else {}
    exercises = Exercises(json.loads(notebook.read_text(encoding="utf-8")))
    rows = []
    for exercise in exercises.answers:
        failures = [_run_test(visible_part(_source(exercises.cells[i])), namespace)
                    for i in exercises.tests[exercise]]
        failures = [f for f in failures if f]
        if not failures:
            status = "visible tests pass"
        elif failures[0].startswith("NotImplementedError"):
            status = "not answered yet"
        elif failures[0].startswith(f"NameError: name '{exercise}'"):
            status = "answer cell not run yet"
        else:
            status = f"visible tests fail: {failures[0]}"
        rows.append((exercise, exercises.worth(exercise), status))
    return rows


def summary(path: str | Path | None = None, namespace: dict | None = None) -> None:
    """Print where each exercise of this notebook stands (see `standing`); graded runs skip it."""
    if os.environ.get("NBGRADER_EXECUTION"):
        print("Graded runs skip this summary: hidden tests decide the grade.")
        return
    try:
        rows = standing(path, namespace)
    except FileNotFoundError as error:
        print(error)
        return
    if not rows:
        print("This notebook has no graded exercise.")
        return
    width = max(len(exercise) for exercise, _, _ in rows)
    done = sum(status == "visible tests pass" for _, _, status in rows)
    print(f"{done} of {len(rows)} exercises pass their visible tests "
          "(hidden tests run when you are graded; press Validate to run the notebook as the grader does).")
    for exercise, worth, status in rows:
        print(f"  {exercise:<{width}}  {worth:<32}  {status}")
