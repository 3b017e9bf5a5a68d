"""Attention, Graded: the course's support package and its `course` command.

Runtime helpers the notebooks import (device choice, seeding, plots, the checks used
by test cells) and the instructor tooling (release, execute, autograde, validate, demo).
It holds no exercise answer: installing it gives nothing away.
"""
__version__ = "0.1.0"
