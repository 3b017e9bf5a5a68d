"""Benchmarks: the course's own numbers, each printed as a table (`course bench ...`).

For instructors and maintainers: how long the notebooks take, how fast a class is graded,
how the course's attention and model compare with torch's, and (on a GPU) the paper's base
model's MFU. They measure; they never fail on a number (targets are printed beside).
It may import anything of course_utils but the CLI.
"""
