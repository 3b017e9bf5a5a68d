"""nbgrader configuration for Attention, Graded.

The course root is this folder (the repository root). Instructors edit `solutions/`
(nbgrader's source) and release into `notebooks/` with `course generate`.
"""
import os

from nbgrader.converters import GenerateAssignment
from nbgrader.preprocessors import ClearHiddenTests, GetGrades
from nbconvert.preprocessors import CSSHTMLHeaderPreprocessor, TagRemovePreprocessor

c = get_config()  # noqa: F821  (provided by traitlets when nbgrader loads this file)

ROOT = os.path.dirname(os.path.abspath(__file__))

c.CourseDirectory.course_id = "attention-graded"
c.CourseDirectory.root = ROOT
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "notebooks"
# The gradebook every command reads and writes, set once here: the built-in SQLite gradebook at the
# course root (ignored by git), or the one COURSE_DB_URL names (postgresql://USER:PASSWORD@HOST/DB),
# which keeps a password out of this file. `course ... --db-url URL` overrides it for one command.
c.CourseDirectory.db_url = os.environ.get("COURSE_DB_URL") or "sqlite:///" + os.path.join(ROOT, "gradebook.db")

# Training cells in notebook 07 run for minutes on a CPU; graded runs use fast mode
# (the kernel sees NBGRADER_EXECUTION), so 10 minutes per cell is a generous ceiling.
c.Execute.timeout = 600
c.Execute.kernel_name = "python3"

# What a student sees in place of each removed answer.
c.ClearSolutions.code_stub = {
    "python": "# YOUR CODE HERE: replace this line with your implementation.\n"
    "raise NotImplementedError(\"Write your answer in this cell, then run the test cell below it.\")",
}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE: replace this text with your answer."

# The model answers of the think questions are for after the deadline (`course answers`):
# nbconvert's TagRemovePreprocessor drops their cells before nbgrader reads anything else,
# so they reach neither the release nor the gradebook.
c.GenerateAssignment.preprocessors = [TagRemovePreprocessor,
                                      *GenerateAssignment.class_traits()["preprocessors"].default()]
c.TagRemovePreprocessor.enabled = True
c.TagRemovePreprocessor.remove_cell_tags = {"model-answer"}

# A student who deletes a test cell gets it back at grading time (and loses nothing).
c.OverwriteCells.add_missing_cells = True

# Feedback shows scores and the visible tests, never the hidden ones.
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, CSSHTMLHeaderPreprocessor]
