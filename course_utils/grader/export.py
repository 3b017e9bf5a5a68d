"""Grades for a learning-management system, as an nbgrader export plugin.

For instructors who hand grades on to Canvas (or any LMS that imports Canvas's gradebook
CSV). It is nbgrader's own exporter mechanism: `course export` runs `nbgrader export
--exporter=course_utils.grader.export.CanvasExportPlugin`, and so can an instructor by hand.
Grades come from the gradebook, so manual grades from the formgrader and late penalties count.
A submission held for the instructor (a notebook of it flagged, as `course autograde` flags what
its source screen and sandbox found) is left empty until someone unflags it in the formgrader:
an empty cell leaves Canvas's grade as it was.
"""
from __future__ import annotations

import csv

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin

# Canvas's gradebook import: these columns first, then one per assignment; a second row gives each
# assignment's points. Canvas matches students on its "SIS Login ID", which on a JupyterHub that
# logs in through the institution is the login name nbgrader uses as the student id.
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
POINTS_ROW = "Points Possible"


def final_score(raw: float, penalty: float | None) -> float:
    """What counts after a late penalty, as nbgrader's own CSV export computes it."""
    return max(0.0, raw - (penalty or 0.0))


def held(submission: object) -> bool:
    """A submission that a notebook's flag holds for the instructor."""
    return any(notebook.flagged for notebook in submission.notebooks)


class CanvasExportPlugin(ExportPlugin):
    """One row per student of the gradebook, one column per assignment (0 where nothing was handed in,
    empty where the submission is held for the instructor)."""

    def export(self, gradebook: Gradebook) -> None:
        dest = self.to or "canvas.csv"
        assignments = [a for a in gradebook.assignments if not self.assignment or a.name in self.assignment]
        students = [s for s in gradebook.students if not self.student or s.id in self.student]
        self.log.info("Exporting %d students x %d assignments to %s (Canvas)", len(students), len(assignments), dest)
        with open(dest, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(CANVAS_COLUMNS + [a.name for a in assignments])
            writer.writerow([POINTS_ROW, "", "", "", ""] + [f"{a.max_score:g}" for a in assignments])
            for student in students:
                name = ", ".join(part for part in (student.last_name, student.first_name) if part) or student.id
                row = [name, "", "", student.id, ""]
                for assignment in assignments:
                    try:
                        submission = gradebook.find_submission(assignment.name, student.id)
                    except MissingEntry:
                        row.append("0")
                        continue
                    if held(submission):
                        self.log.warning("Held for review, left empty: %s, %s (unflag it in the formgrader "
                                         "once you have looked)", student.id, assignment.name)
                        row.append("")
                        continue
                    row.append(f"{final_score(submission.score, submission.late_submission_penalty):g}")
                writer.writerow(row)
