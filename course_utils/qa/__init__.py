"""Course QA: what proves the course to its authors and to CI.

Made-up submissions (`submissions`) and classes (`sample_class`), the bug catalogue that
proves every grader sensitive and fair (`catalogue`), running the solution notebooks with
papermill (`execute`) and auditing their figures (`figure_audit`), the reference code of the
solutions for benchmarks (`solution_code`), and `course demo`, the main job end to end.

Every grade here goes through the instructors' own path, `course_utils.grader.engine.pipeline`.
It may import the grader, `course_utils.course` and `course_utils.ipynb`; never the
benchmarks or the CLI (tests/test_layout.py keeps it so).
"""
