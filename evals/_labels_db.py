"""The labels database's shape: its schema, the upgrade of an earlier version's, waiting
out another connection, and a label as a calibration row."""

from __future__ import annotations

import functools
import sqlite3
import time
from collections.abc import Callable
from typing import Any

from ._judged import JudgeVerdict
from ._own_db import tables_of

_LABELS = """labels (
    key TEXT NOT NULL,
    annotator TEXT NOT NULL,
    scorer_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    judge_model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    verdict TEXT NOT NULL,
    label INTEGER,
    note TEXT NOT NULL,
    blind INTEGER NOT NULL,
    updated TEXT NOT NULL,
    PRIMARY KEY (key, annotator)
)"""

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {_LABELS};
CREATE INDEX IF NOT EXISTS labels_judge ON labels (scorer_id, judge_model, prompt_version);
CREATE TABLE IF NOT EXISTS row_reviews (
    data_set TEXT NOT NULL,
    row_id TEXT NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('accept', 'reject')),
    row TEXT NOT NULL,
    updated TEXT NOT NULL,
    PRIMARY KEY (data_set, row_id)
);
CREATE TABLE IF NOT EXISTS written (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
"""

BEFORE_ANNOTATORS = f"""
ALTER TABLE labels RENAME TO labels_before_annotators;
DROP INDEX IF EXISTS labels_judge;
CREATE TABLE {_LABELS};
INSERT INTO labels SELECT key, '', scorer_id, kind, judge_model, prompt_version, verdict,
    label, '', 0, updated FROM labels_before_annotators;
DROP TABLE labels_before_annotators;
"""
"""A labels table of the first version (one label per verdict, no annotator, note or
blind flag) made the current one, its labels kept as made by "" (unnamed)."""
ANNOTATOR_LIMIT, NOTE_LIMIT = 100, 4_000
"""The longest annotator name and note a label takes."""


def upgrade(connection: sqlite3.Connection) -> None:
    """Bring an earlier version's labels table to this one, in one transaction (nothing
    changes if it fails)."""
    columns = [row[1] for row in connection.execute("PRAGMA table_info(labels)")]
    if not columns or "annotator" in columns:
        return
    connection.execute("BEGIN IMMEDIATE")
    try:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(labels)")]
        if "annotator" not in columns:
            for statement in BEFORE_ANNOTATORS.split(";"):
                if statement.strip():
                    connection.execute(statement)
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


@functools.cache
def tables() -> frozenset[str]:
    return frozenset(tables_of(SCHEMA))


def retrying(work: Callable[[], Any], seconds: float = 30.0) -> Any:
    """``work()``, tried again while another connection holds the database (SQLite's own
    busy wait does not cover every case: a journal-mode change, a schema made at once)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return work()
        except sqlite3.OperationalError as exc:
            busy = "locked" in str(exc) or "busy" in str(exc)
            if not busy or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def calibration_row(v: JudgeVerdict, label: bool | int | str) -> dict[str, Any]:
    """A labelled verdict as a calibration row (`LabelStore.calibration_rows`)."""
    if v.graded:
        return {
            "input": v.input,
            "chunk": v.text,
            "label": ("none", "low", "medium", "high")[int(label)],
        }
    if v.kind == "claim":
        row: dict[str, Any] = {
            "claim": v.text,
            "context": v.context,
            "label": "supported" if label else "not_supported",
        }
        if v.input:
            row["input"] = v.input
        return row
    against = "response" if v.scorer_id == "context-utilization" else "ground_truth"
    return {"input": v.input, against: v.reference, "chunk": v.text, "label": int(label)}
