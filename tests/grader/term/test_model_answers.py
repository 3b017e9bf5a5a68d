"""Think questions: two or three per notebook, each with a place to answer and a model answer that
only instructors see until `course answers` hands it out."""
import nbformat
import pytest

from conftest import COURSE, IDS, run_course
from course_utils import ipynb
from course_utils.grader.term import model_answers as ma
from course_utils.ipynb import nbgrader_meta

ASKING = [aid for aid in IDS if aid != "00_welcome"]   # the welcome has nothing to reason about yet


@pytest.mark.parametrize("aid", ASKING)
def test_each_notebook_asks_two_or_three_think_questions_laid_out_in_full(aid):
    cells = ipynb.read(COURSE.solution(aid)).cells
    questions = ma.think_questions(COURSE.solution(aid))
    assert 2 <= len(questions) <= 3, f"{aid} asks {len(questions)} think questions"
    for q in questions:
        i = next(i for i, c in enumerate(cells) if c.id == f"think-{q.slug}")
        question, yours, answer = cells[i:i + 3]
        assert question.cell_type == yours.cell_type == answer.cell_type == "markdown"
        assert question.source.startswith(ma.QUESTION_PREFIX) and ma.QUESTION_TAG in question.metadata["tags"]
        assert yours.id == f"think-{q.slug}-yours" and yours.source.startswith(ma.YOURS_SOURCE.strip())
        assert answer.source.startswith(ma.ANSWER_PREFIX) and answer.metadata["tags"] == [ma.ANSWER_TAG]
        assert not any(nbgrader_meta(c) for c in (question, yours, answer)), "think questions are not graded"
        # An exercise is its answer cell and the test cells after it: a question never splits one.
        following = cells[i + 3] if i + 3 < len(cells) else None
        assert following is None or not nbgrader_meta(following).get("grade"), \
            f"think-{q.slug} sits between an exercise and its tests"
        assert len(q.answer.split()) >= 25, f"think-{q.slug}: the model answer says too little"


@pytest.mark.parametrize("aid", ASKING)
def test_the_release_asks_the_questions_and_holds_no_model_answer(aid):
    released = ipynb.read(COURSE.release(aid)).cells
    ids = {c.id for c in released}
    raw = COURSE.release(aid).read_text()
    for q in ma.think_questions(COURSE.solution(aid)):
        assert {f"think-{q.slug}", f"think-{q.slug}-yours"} <= ids
        assert f"think-{q.slug}-answer" not in ids
        assert q.answer[:60] not in raw, f"the model answer of think-{q.slug} leaks into the release"
    assert ma.ANSWER_TAG not in raw and ma.ANSWER_PREFIX.strip() not in raw


def test_course_answers_writes_every_model_answer_for_after_the_deadline(tmp_path):
    result = run_course("answers", "--to", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "00_welcome asks no think question" in result.stdout
    for aid in ASKING:
        text = (tmp_path / f"{aid}.md").read_text()
        questions = ma.think_questions(COURSE.solution(aid))
        assert text.count("\n## ") == len(questions)
        assert all(q.question in text and q.answer in text for q in questions)


def test_a_question_without_its_model_answer_is_an_error(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(ma.QUESTION_PREFIX + "Why?", id="think-why",
                                              metadata={"tags": [ma.QUESTION_TAG]})]
    path = tmp_path / "99_broken.ipynb"
    nbformat.write(nb, str(path))
    with pytest.raises(ma.CourseError, match="think-why-answer"):
        ma.think_questions(path)
