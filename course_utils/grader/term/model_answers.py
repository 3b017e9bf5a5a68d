"""The think questions' model answers: kept out of the student release, handed out after the deadline.

For instructors. Every notebook asks two or three think questions: short questions to reason
about, answered in words and not graded. In the solution notebook each question is followed
by the cell a student writes in and by a model answer, a Markdown cell tagged `model-answer`.
The release drops that cell (nbconvert's TagRemovePreprocessor, put first in nbgrader's
GenerateAssignment by nbgrader_config.py), like a solution; `course answers` gathers the model
answers of a notebook into one Markdown file for the instructor to hand out once the
deadline has passed.

The layout of a question, in the solution notebook (tests/grader/test_model_answers.py keeps it):

    think-<slug>          "> **Think.** ..."        tag `think`
    think-<slug>-yours    "*Your answer* ..."       where the student writes
    think-<slug>-answer   "**Model answer.** ..."   tag `model-answer`: instructors only
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from course_utils import ipynb
from course_utils.course import Course, CourseError

QUESTION_TAG = "think"
ANSWER_TAG = "model-answer"     # nbgrader_config.py names it too: the release drops these cells
QUESTION_PREFIX = "> **Think.** "
ANSWER_PREFIX = "**Model answer.** "
YOURS_SOURCE = "*Your answer (not graded; compare it with the model answer after the deadline):* "


@dataclass(frozen=True)
class ThinkQuestion:
    slug: str
    question: str   # Markdown, without the prefix
    answer: str     # Markdown, without the prefix


def _tags(cell: dict) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def think_questions(path: Path) -> list[ThinkQuestion]:
    """The think questions of the solution notebook at `path`, in order, each with its model answer."""
    cells = ipynb.read(path).cells
    questions = []
    for i, cell in enumerate(cells):
        if QUESTION_TAG not in _tags(cell):
            continue
        slug = cell.id.removeprefix("think-")
        answer = next((c for c in cells[i + 1:] if c.id == f"think-{slug}-answer"), None)
        if answer is None or ANSWER_TAG not in _tags(answer):
            raise CourseError(f"{path.name}: think question {cell.id} has no cell think-{slug}-answer "
                              f"tagged {ANSWER_TAG!r}")
        questions.append(ThinkQuestion(slug, cell.source.removeprefix(QUESTION_PREFIX).strip(),
                                       answer.source.removeprefix(ANSWER_PREFIX).strip()))
    return questions


def answers_markdown(aid: str, questions: list[ThinkQuestion]) -> str:
    """One Markdown page: every question of notebook `aid`, each followed by its model answer."""
    parts = [f"# {aid}: model answers to the think questions\n",
             "Compare them with what you wrote; a different answer can be just as right if it "
             "reasons from what the notebook showed.\n"]
    for number, q in enumerate(questions, 1):
        parts.append(f"## {number}. {q.question}\n\n{q.answer}\n")
    return "\n".join(parts)


def write_answers(course: Course, aid: str, folder: str | Path | None = None) -> Path | None:
    """Write the model answers of notebook `aid` to <folder>/<aid>.md (default folder: reports/answers).

    None when the notebook asks no think question.
    """
    questions = think_questions(course.solution(aid))
    if not questions:
        return None
    target = Path(folder if folder is not None else course.reports("answers")) / f"{aid}.md"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(answers_markdown(aid, questions))
    return target
