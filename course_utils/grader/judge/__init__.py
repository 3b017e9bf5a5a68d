"""Where a submission's code runs and where its grade is decided.

For instructors, whose grades must hold against students who try to cheat: `sandbox` runs the
graded kernel in bubblewrap under limits; `screen` reads what the student's code may do before
it runs; `sanitize` reads a submission defensively; `preprocessors` are the repairs and limits the
grader adds inside nbgrader, and `verdicts` decides every test cell's outcome in the grader's own
process from data the kernel returns, so that no code of the student's can reach a grade.

It may import the standard library, nbgrader, `course_utils.course`, `course_utils.ipynb`, the
engine's records; `verdicts` alone imports `course_utils.notebook` (the tests' own vocabulary,
run in the grader, never the student's code). Never QA, benchmarks or the CLI.
"""
