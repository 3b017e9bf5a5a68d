"""The grader: everything an instructor runs to release, grade and hand back the course.

It serves instructors (and the QA tools, which grade their made-up classes through the very
same path), in three rooms:

- `engine`: the grading engine. `pipeline.autograde` grades a class, one private job per
  (student, assignment) (`jobs`), on local workers or Dask (`scheduler`), one run per course
  (`lock`), merging every result into nbgrader's gradebook (`gradebook`) and a journal that
  makes a run resumable (`journal`).
- `judge`: where the student's code runs and where its grade is decided: the sandboxed kernel
  (`sandbox`), the source screen (`screen`), the repairs and limits inside nbgrader
  (`sanitize`, `preprocessors`) and the verdicts, computed in the grader from what the kernel
  returns (`verdicts`).
- `term`: the instructor's term around it: `release`, `publish` (the students' copy),
  `feedback`, `export` (grades for an LMS), `formgrader` (its Autograde button), `class_report`
  and `model_answers`.

It may import nbgrader, the standard library, `course_utils.course` and `course_utils.ipynb`;
the student's `notebook` package only in `judge.verdicts`, which runs the tests' own code in the
grader; never QA, benchmarks or the CLI (tests/test_layout.py keeps it so). Dask and PostgreSQL
are optional: `pip install -e ".[grader]"`.
"""
