"""`course report`: how the class did, per exercise and per assignment, from the gradebook."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only; this runs in a terminal, not a notebook
import matplotlib.pyplot as plt
from nbgrader.api import Gradebook

from course_utils.course import Course

PassRate = tuple[str, str, int, int, float]        # assignment, test cell, submissions, full marks, rate
Scores = dict[str, tuple[list[float], float]]      # assignment -> (total scores, max score)


def pass_rates(course: Course, ids: list[str], db_url: str | None = None) -> tuple[list[PassRate], Scores]:
    """[(assignment, test cell, submissions, full marks, rate)] and {assignment: ([scores], max)}."""
    rates, scores = [], {}
    with Gradebook(db_url or course.db_url, course.course_id) as gb:
        for aid in ids:
            try:
                assignment = gb.find_assignment(aid)
            except Exception:  # noqa: BLE001  (not graded yet: nothing to report)
                continue
            submissions = list(assignment.submissions)
            scores[aid] = ([float(s.score) for s in submissions], float(assignment.max_score))
            cells = {}
            for submission in submissions:
                for notebook in submission.notebooks:
                    for grade in notebook.grades:
                        full = float(grade.score) >= float(grade.max_score)
                        total, passed = cells.get(grade.name, (0, 0))
                        cells[grade.name] = (total + 1, passed + full)
            for name, (total, passed) in sorted(cells.items()):
                rates.append((aid, name, total, passed, passed / total if total else 0.0))
    return rates, scores


def histograms(scores: Scores, folder: Path) -> list[Path]:
    """One PNG per assignment: the distribution of total scores."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for aid, (values, top) in scores.items():
        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.hist(values, bins=min(20, max(5, int(top) + 1)), range=(0, max(top, 1)), color="#440154",
                edgecolor="white")
        ax.set_title(f"{aid}: scores of {len(values)} submissions")
        ax.set_xlabel(f"score (out of {top:g})")
        ax.set_ylabel("submissions")
        path = folder / f"scores-{aid}.png"
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)
    return paths
