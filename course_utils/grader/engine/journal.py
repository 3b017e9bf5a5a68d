"""The grading journal: one JSON line per finished job, appended as soon as it is merged.

It is what makes `course autograde` resumable: after a crash (or a kill of the grader),
a re-run skips every (student, assignment) whose submission is unchanged since it was
graded into the same gradebook, unless --force.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path


def fingerprint(data: bytes) -> str:
    """What identifies a submission's content: the SHA-256 of its bytes."""
    return hashlib.sha256(data).hexdigest()


def parse(lines: Iterable[str]) -> dict[tuple[str, str], dict]:
    """{(student, assignment): record}, the latest record of each; lines cut short by a crash are skipped."""
    records = {}
    for line in lines:
        try:
            record = json.loads(line)
            key = record["student_id"], record["assignment"]
        except (json.JSONDecodeError, KeyError, TypeError):
            continue  # a line cut short by a crash: that job simply runs again
        records[key] = record
    return records


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def load(self) -> dict[tuple[str, str], dict]:
        return parse(self.path.read_text().splitlines()) if self.path.is_file() else {}

    def append(self, record: dict) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a") as handle:
            handle.write(json.dumps(record, sort_keys=True) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
