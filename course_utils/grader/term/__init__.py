"""The instructor's term around grading: release, publish, feedback, grades out, reports.

For instructors: `release` makes the student notebooks with nbgrader; `publish` writes the
students' copy of the course (no answers, no hidden tests); `feedback` hands graded notebooks
back; `export` writes grades for an LMS; `formgrader` is the formgrader's Autograde button;
`class_report` and `model_answers` are the reports after a deadline.

It may import the standard library, nbgrader, `course_utils.course`, `course_utils.ipynb` and
the grader's engine; never the student's kernel package, QA, benchmarks or the CLI.
"""
