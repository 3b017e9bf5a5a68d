"""Attention, Graded: the course's support package and its `course` command.

One package, three audiences, each in a room of its own:

- `course_utils.notebook`: what a student's kernel loads (setup, checks, trusted torch
  references, plots, the translation data). It imports nothing else of this package.
- `course_utils.grader`: what instructors release and grade with: nbgrader's generate step,
  the one grading pipeline (private jobs, sandboxed kernels, local or Dask workers), the
  gradebook, feedback and the class report.
- `course_utils.qa` and `course_utils.bench`: what proves and measures the course (the bug
  catalogue, sample classes, notebook execution, the figure audit, the demo, benchmarks).

`course_utils.cli` is the `course` command over all of them; `course` and `ipynb` are the
shared core (where a course lives; notebook files). It holds no exercise answer:
installing it gives nothing away.
"""
__version__ = "0.1.0"
