"""`course catalogue`: prove every grader with the course's catalogue of learner answers.

tests/bug_catalogue/<assignment>/<answer grade_id>/ holds `wrong_*.py` (a realistic learner
mistake each) and `right_*.py` (a correct answer written differently from the solution).
Each file is the full source of that answer cell. Every entry is swapped into an otherwise
perfect submission and graded by real nbgrader: wrong answers must lose points, right
answers must keep full marks; the perfect submission must score full marks and the blank
release zero.
"""
import ast
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from course_utils.course import Course, CourseError
from course_utils.sample_class import answers, blank, grade_class, perfect


@dataclass(frozen=True)
class Entry:
    assignment: str
    grade_id: str
    kind: str  # "wrong" or "right"
    name: str
    path: Path

    @property
    def student_id(self):
        return f"{self.kind}--{self.grade_id}--{self.name}"

    @property
    def doc(self):
        return ast.get_docstring(ast.parse(self.path.read_text())) or ""


@dataclass
class Verdict:
    assignment: str
    exercise: str
    entry: str
    score: float
    max_score: float
    expected: str  # "full", "zero" or "less"
    detail: str
    messages: dict = None  # failing test cell -> (error name, message, traceback)

    @property
    def ok(self):
        if self.expected == "full":
            return self.score == self.max_score
        if self.expected == "zero":
            return self.score == 0
        return self.score < self.max_score

    @property
    def verdict(self):
        return "ok" if self.ok else "MISS"


def catalogue_root(course: Course):
    return course.root / "tests" / "bug_catalogue"


def load(course: Course, aid):
    folder = catalogue_root(course) / aid
    entries = []
    for path in sorted(folder.glob("*/*.py")) if folder.is_dir() else []:
        kind, _, name = path.stem.partition("_")
        if kind not in ("wrong", "right") or not name:
            raise CourseError(f"{path}: catalogue files are named wrong_<what>.py or right_<what>.py")
        entries.append(Entry(aid, path.parent.name, kind, name, path))
    return entries


def run_assignment(course: Course, aid):
    entries = load(course, aid)
    class_ = {"perfect": perfect, "blank": blank}
    for entry in entries:
        class_[entry.student_id] = answers({entry.grade_id: entry.path.read_text()})
    with tempfile.TemporaryDirectory(prefix=f"course-catalogue-{aid}-") as tmp:
        rows = grade_class(course, aid, class_, tmp)
    verdicts = [Verdict(aid, "(all)", "perfect submission", rows["perfect"].score, rows["perfect"].max_score,
                        "full", rows["perfect"].detail),
                Verdict(aid, "(all)", "blank release", rows["blank"].score, rows["blank"].max_score,
                        "zero", rows["blank"].detail)]
    for entry in entries:
        row = rows[entry.student_id]
        verdicts.append(Verdict(aid, entry.grade_id, f"{entry.kind}_{entry.name}", row.score, row.max_score,
                                "full" if entry.kind == "right" else "less", row.detail, row.messages))
    return verdicts


def run(course: Course, ids, workers=None):
    """Grade the catalogue of every assignment (in parallel, one nbgrader run each)."""
    with ThreadPoolExecutor(max_workers=workers or 2) as pool:
        results = list(pool.map(lambda aid: run_assignment(course, aid), ids))
    return [v for verdicts in results for v in verdicts]
