"""The grading engine: one private job per (student, assignment), merged into nbgrader's gradebook.

For instructors (and the QA tools, which grade their made-up classes through the same path):
`pipeline.autograde` is `course autograde`; `jobs` grades one submission in a private course
root with its own `nbgrader autograde` process (`nbgrader_runner`, forks of `nbgrader_main`'s
fork server); `scheduler` runs jobs on local workers or Dask; `lock` keeps one run per course;
`journal` makes a run resumable; `records` and `gradebook` are what a run reports and stores.

It may import the standard library, nbgrader, `course_utils.course`, `course_utils.ipynb` and
the grader's other rooms; never the student's kernel package directly (the verdicts do that, in
`course_utils.grader.judge`), QA, benchmarks or the CLI.
"""
