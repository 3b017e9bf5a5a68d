"""Grades for a learning-management system, as an nbgrader export plugin.

For instructors who hand grades on to Canvas (or any LMS that imports Canvas's gradebook
CSV). It is nbgrader's own exporter mechanism: `course export` runs `nbgrader export
--exporter=course_utils.grader.term.export.CanvasExportPlugin`, and so can an instructor by hand.
Grades come from the gradebook, so manual grades from the formgrader and late penalties count.
A submission held for the instructor (a notebook of it flagged, as `course autograde` flags what
its source screen and sandbox found) is left empty until someone unflags it in the formgrader:
an empty cell leaves Canvas's grade as it was.

Every student of the gradebook gets a row: one with nothing handed in for an assignment gets
the plugin's `missing` value, "0" unless the course's nbgrader_config.py says otherwise
(`c.CanvasExportPlugin.missing = ""` leaves such cells empty, so Canvas keeps what it has;
`course export --missing zero|blank` chooses for one run). An assignment that no student has a
submission of in the gradebook is left out, with a warning; a gradebook that holds no submission
of any chosen assignment (nothing graded yet, or a command reading another gradebook than the
one graded into) is an error (`NoGrades`), never a CSV of zeros: `nbgrader export` then exits
non-zero and `course export` exits 2 saying what to do.
"""
from __future__ import annotations

import csv
import logging

from nbgrader.api import Assignment, Gradebook, MissingEntry
from nbgrader.plugins import CsvExportPlugin, ExportPlugin
from traitlets import Unicode

# Canvas's gradebook import: these columns first, then one per assignment; a second row gives each
# assignment's points. Canvas matches students on its "SIS Login ID", which on a JupyterHub that
# logs in through the institution is the login name nbgrader uses as the student id.
CANVAS_COLUMNS = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
POINTS_ROW = "Points Possible"
# How NoGrades' message starts: `course export` finds it in nbgrader's log.
NO_GRADES = "No grades to export"


class NoGrades(Exception):
    """The gradebook holds no submission of the assignments to export."""


def require_submissions(gradebook: Gradebook, chosen: list[str], log: logging.Logger) -> list[Assignment]:
    """The gradebook's assignments among `chosen` (all when empty); NoGrades when none holds a submission.

    The reason is logged as an error too: a run of nbgrader does not always print the traceback.
    """
    assignments = [a for a in gradebook.assignments if not chosen or a.name in chosen]
    if not any(a.num_submissions for a in assignments):
        url = gradebook.engine.url.render_as_string(hide_password=True)
        which = ", ".join(chosen) if chosen else "any assignment"
        message = (f"{NO_GRADES}: the gradebook {url} holds no submission of {which}. Grade into it first "
                   "(`course autograde`), or, if you graded into another gradebook, read that one: pass its URL "
                   "with --db-url, or set c.CourseDirectory.db_url in nbgrader_config.py.")
        log.error(message)
        raise NoGrades(message)
    return assignments


def final_score(raw: float, penalty: float | None) -> float:
    """What counts after a late penalty, as nbgrader's own CSV export computes it."""
    return max(0.0, raw - (penalty or 0.0))


def held(submission: object) -> bool:
    """A submission that a notebook's flag holds for the instructor."""
    return any(notebook.flagged for notebook in submission.notebooks)


class CanvasExportPlugin(ExportPlugin):
    """One row per student of the gradebook, one column per assignment with a submission (`missing` where
    nothing was handed in, empty where the submission is held for the instructor)."""

    missing = Unicode("0", help="what a student who handed nothing in gets: \"0\" (a zero in the LMS) or \"\" "
                               "(an empty cell: the LMS keeps what it has)").tag(config=True)

    def export(self, gradebook: Gradebook) -> None:
        dest = self.to or "canvas.csv"
        assignments = []
        for assignment in require_submissions(gradebook, self.assignment, self.log):
            if assignment.num_submissions:
                assignments.append(assignment)
            else:  # a column of nothing but missing values would overwrite what the LMS holds for it
                self.log.warning("Left out %s: the gradebook holds no submission of it", assignment.name)
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
                        row.append(self.missing)
                        continue
                    if held(submission):
                        self.log.warning("Held for review, left empty: %s, %s (unflag it in the formgrader "
                                         "once you have looked)", student.id, assignment.name)
                        row.append("")
                        continue
                    row.append(f"{final_score(submission.score, submission.late_submission_penalty):g}")
                writer.writerow(row)


class CheckedCsvExportPlugin(CsvExportPlugin):
    """nbgrader's own grades CSV, refusing (NoGrades) a gradebook without a submission to export."""

    def export(self, gradebook: Gradebook) -> None:
        require_submissions(gradebook, self.assignment, self.log)
        super().export(gradebook)
