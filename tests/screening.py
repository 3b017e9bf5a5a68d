"""Submissions for the source screen's tests, made as the grader and the catalogue make them.

An assignment's screen context is built as a grading job builds it (from the release and the
gradebook's locked cells, which are the solution's), and a submission is the release filled with
the solution's answers (`course_utils.qa.submissions.with_answers`), with answers or added cells
of the test's own.
"""
import copy
import functools

import nbformat

from conftest import COURSE
from course_utils import ipynb
from course_utils.grader.judge import screen
from course_utils.qa.submissions import with_answers

SOFTMAX = ("def softmax(x, dim=-1):\n    e = torch.exp(x - x.amax(dim=dim, keepdim=True))\n"
           "    return e / e.sum(dim=dim, keepdim=True)\n")


@functools.cache
def notebooks(aid):
    """(release, solution) of an assignment, read once: callers copy them."""
    return ipynb.read(COURSE.release(aid)), ipynb.read(COURSE.solution(aid))


@functools.cache
def context(aid):
    """The screen's context of `aid`, as a grading job reads it from the gradebook (the solution's cells)."""
    release, solution = notebooks(aid)
    locked = [(c.source, bool(ipynb.nbgrader_meta(c).get("grade"))) for c in solution.cells
              if ipynb.nbgrader_meta(c).get("locked")]
    answers = [ipynb.nbgrader_meta(c)["grade_id"] for c in solution.cells if ipynb.nbgrader_meta(c).get("solution")]
    return screen.context(copy.deepcopy(release), locked, aid, answers)


def submission(aid, answers=None, added=None, at=None):
    """`aid`'s release with the solution's answers, `answers` ({grade id: source}) instead of some, and,
    if given, a cell `added` before cell `at` (before the last cell by default)."""
    release, solution = notebooks(aid)
    nb = with_answers(copy.deepcopy(release), solution, answers or {})
    if added is not None:
        nb.cells.insert(len(nb.cells) - 1 if at is None else at, nbformat.v4.new_code_cell(added))
    return nb


def findings(aid, answers=None, added=None, at=None):
    return screen.screen(submission(aid, answers, added, at), context(aid))
