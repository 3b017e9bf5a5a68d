"""Text tables the `course` command prints."""
from collections import defaultdict

from tabulate import tabulate


def execution_table(runs):
    rows = [(r.notebook, r.status, f"{r.seconds:.1f}", r.detail) for r in runs]
    total = sum(r.seconds for r in runs)
    rows.append(("total", f"{sum(r.status == 'ok' for r in runs)}/{len(runs)} ok", f"{total:.1f}", ""))
    return tabulate(rows, headers=["notebook", "status", "seconds", "detail"], tablefmt="simple")


def score_table(rows, ids):
    """One line per student, one column per notebook: score/max (or the status when not graded)."""
    by_student = defaultdict(dict)
    for row in rows:
        cell = f"{row.score:g}/{row.max_score:g}" if row.status == "graded" else row.status
        by_student[row.student_id][row.assignment] = (cell, row.score, row.max_score)
    shown = [aid for aid in ids if any(aid in marks for marks in by_student.values())]
    table = []
    for student, marks in sorted(by_student.items()):
        got = sum(m[1] for m in marks.values())
        most = sum(m[2] for m in marks.values())
        table.append([student, *(marks.get(aid, ("-",))[0] for aid in shown), f"{got:g}/{most:g}"])
    headers = ["student", *(aid[:2] for aid in shown), "total"]
    return tabulate(table, headers=headers, tablefmt="simple")


def grade_rows_table(rows):
    return tabulate([(r.student_id, r.assignment, f"{r.score:g}", f"{r.max_score:g}", r.status,
                      _short(r.detail), _short("; ".join(r.flags)))
                     for r in rows], headers=["student", "assignment", "score", "max", "status", "detail", "flags"])


def _short(text, width=60):
    return text if len(text) <= width else text[:width - 1] + "…"


def catalogue_table(verdicts):
    return tabulate([(v.assignment, v.exercise, v.entry, f"{v.score:g}/{v.max_score:g}",
                      {"full": "full marks", "zero": "zero", "less": "loses points"}[v.expected], v.verdict)
                     for v in verdicts],
                    headers=["notebook", "exercise", "entry", "score", "must", "verdict"])
