"""The grader: everything an instructor runs to release, grade and hand back the course.

It serves instructors (and the QA tools, which grade their made-up classes through the very
same path): `release` makes the student notebooks with nbgrader and `publish` the students'
copy of the course (no answers, no hidden tests); `pipeline.autograde` grades a class, one
private job per (student, assignment) (`jobs`), its source read first (`screen`), in a sandboxed
kernel (`sandbox`), on local workers or Dask (`scheduler`), merging every result into nbgrader's
gradebook (`gradebook`) and a journal that makes a run resumable (`journal`); `feedback` and
`class_report` hand the grades back.

It may import nbgrader, the standard library, `course_utils.course` and
`course_utils.ipynb`; never the student's `notebook` package, QA, benchmarks or the CLI
(tests/test_layout.py keeps it so). Dask and PostgreSQL are optional: `pip install -e ".[grader]"`.
"""
