"""People's labels on the judge's verdicts, and their reviews of synthesized rows, in one
SQLite file beside the runs.

A label says whether a person finds a claim supported by its context (context recall) or
a chunk useful for its reference (context precision, utilization); ``None`` is "cannot
decide", kept but never counted. Each label is keyed to what was judged and by what:
the scorer id, the judge model and the version of the prompt that gave the verdict, so
agreement is only ever reported for the judge and prompt that produced the scores. Every
write is its own transaction (WAL, ``synchronous=FULL``): a label saved is on disk
before the click returns, whatever happens to the process after.
"""

from __future__ import annotations

import functools
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from scorers import ConfigError

from ._judged import JudgeVerdict, Label
from ._own_db import APPLICATION_ID, foreign, own_database, tables_of

LABELS_FILE = "scorekit-labels.sqlite"
"""The labels database's name in a folder of runs."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS labels (
    key TEXT PRIMARY KEY,
    scorer_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    judge_model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    verdict TEXT NOT NULL,
    label INTEGER,
    updated TEXT NOT NULL
);
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


@functools.cache
def _tables() -> frozenset[str]:
    return frozenset(tables_of(_SCHEMA))


class RowReview(BaseModel):
    """A person's decision on one synthesized row.

    Attributes:
        data_set: The data set file (relative to the folder).
        row_id: The row's id.
        decision: ``"accept"`` or ``"reject"``.
        row: The row as accepted (with the person's edits).
        updated: When it was decided.
    """

    data_set: str
    row_id: str
    decision: Literal["accept", "reject"]
    row: dict[str, Any]
    updated: str


_SETUP = threading.Lock()
"""One connection of this process at a time sets the journal mode and makes the schema."""


def _retrying(work: Callable[[], Any], seconds: float = 30.0) -> Any:
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


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class LabelStore:
    """The labels database (`LABELS_FILE`) of a folder of runs.

    Reading a store that does not exist finds no labels and creates nothing; the first
    write creates it.

    Args:
        path: The database file, or the folder that holds (or will hold) it.
    """

    def __init__(self, path: str | os.PathLike[str]):
        given = Path(path)
        self.path = given / LABELS_FILE if given.is_dir() else given

    def _check_own(self, connection: sqlite3.Connection) -> None:
        """Refuse, before anything is written, a file that is not scorekit's labels
        database (a link, not SQLite, another application's; see `own_database`). Checked
        on every connection: the file may be replaced while the viewer runs."""
        if self.path.is_symlink():
            raise ConfigError(
                f"{self.path} is a link, not a scorekit labels database; give the folder of "
                "your runs or its scorekit-labels.sqlite"
            )
        (app,) = connection.execute("PRAGMA application_id").fetchone()
        if app == APPLICATION_ID and not foreign(connection, set(_tables())):
            return
        try:
            with _SETUP:
                _retrying(lambda: own_database(self.path, _SCHEMA, rebuild=False).close())
        except ConfigError as exc:
            raise ConfigError(
                f"{self.path} is not a scorekit labels database ({exc}); give the folder of "
                "your runs or its scorekit-labels.sqlite"
            ) from None

    def __repr__(self) -> str:
        return f"LabelStore({str(self.path)!r})"

    @contextmanager
    def _connect(self, write: bool) -> Iterator[sqlite3.Connection | None]:
        if not write and not self.path.is_file() and not self.path.is_symlink():
            yield None
            return
        try:
            connection = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        except sqlite3.Error as exc:
            raise ConfigError(f"cannot open the labels database {self.path}: {exc}") from None
        try:
            _retrying(lambda: self._prepare(connection, write))
            yield connection
        except sqlite3.OperationalError as exc:
            raise ConfigError(f"the labels database {self.path} cannot be used: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise ConfigError(
                f"{self.path} is not a scorekit labels database ({exc}); give the folder of "
                "your runs or its scorekit-labels.sqlite"
            ) from None
        finally:
            connection.close()

    def _prepare(self, connection: sqlite3.Connection, write: bool) -> None:
        self._check_own(connection)
        connection.execute("PRAGMA synchronous=FULL")
        if write:
            with _SETUP:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.executescript(_SCHEMA)

    def _write(self, sql: str, args: tuple[Any, ...]) -> None:
        with self._connect(write=True) as connection:
            assert connection is not None
            _retrying(lambda: connection.execute(sql, args))

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._connect(write=False) as connection:
            if connection is None:
                return []
            try:
                return _retrying(lambda: connection.execute(sql, args).fetchall())
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    return []
                raise

    def save(self, verdict: JudgeVerdict, label: bool | int | None) -> Label:
        """Store a person's label on ``verdict`` (replacing an earlier one), durably: a
        bool (or None) for a yes/no verdict, a grade 0-3 (or None) for a graded one.

        Raises:
            ConfigError: For a label of the other kind.
        """
        if label is not None and verdict.graded != (
            isinstance(label, int) and not isinstance(label, bool)
        ):
            want = "a grade 0-3" if verdict.graded else "True or False"
            raise ConfigError(f"a {verdict.kind} verdict is labelled with {want}; got {label!r}")
        if verdict.graded and label is not None and not 0 <= int(label) <= 3:
            raise ConfigError(f"a grade is 0 (none) to 3 (high); got {label!r}")
        saved = Label(key=verdict.key, verdict=verdict, label=label, updated=_now())
        self._write(
            "INSERT INTO labels VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE "
            "SET verdict = excluded.verdict, label = excluded.label, updated = excluded.updated",
            (
                saved.key,
                verdict.scorer_id,
                verdict.kind,
                verdict.judge_model,
                verdict.prompt_version,
                verdict.model_dump_json(),
                None if label is None else int(label),
                saved.updated,
            ),
        )
        return saved

    def labels(
        self,
        scorer_id: str | None = None,
        judge_model: str | None = None,
        prompt_version: str | None = None,
    ) -> list[Label]:
        """The stored labels, oldest first, those of one scorer / judge / prompt when
        given."""
        where, args = [], []
        for column, value in (
            ("scorer_id", scorer_id),
            ("judge_model", judge_model),
            ("prompt_version", prompt_version),
        ):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        sql = "SELECT key, verdict, label, updated FROM labels"
        sql += (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY updated, key"
        found = []
        for key, verdict, label, updated in self._rows(sql, tuple(args)):
            judged = JudgeVerdict.model_validate_json(verdict)
            kept = None if label is None else int(label) if judged.graded else bool(label)
            found.append(Label(key=key, verdict=judged, label=kept, updated=updated))
        return found

    def keys(self) -> set[str]:
        """The keys of every labelled verdict."""
        return {key for (key,) in self._rows("SELECT key FROM labels")}

    def judges(self, scorer_id: str) -> dict[tuple[str, str], int]:
        """Per (judge model, prompt version), how many decided labels ``scorer_id`` has."""
        rows = self._rows(
            "SELECT judge_model, prompt_version, COUNT(*) FROM labels "
            "WHERE scorer_id = ? AND label IS NOT NULL GROUP BY judge_model, prompt_version",
            (scorer_id,),
        )
        return {(model, prompt): n for model, prompt, n in rows}

    def calibration_rows(self, scorer_id: str | None = None) -> list[dict[str, Any]]:
        """The decided labels as `calibrate`'s rows: claim rows ``{"claim", "context",
        "label": "supported" | "not_supported"}`` and chunk rows ``{"input",
        "ground_truth", "chunk", "label": 0 | 1}`` (``"response"`` instead of
        ``"ground_truth"`` for context utilization's)."""
        rows: list[dict[str, Any]] = []
        for found in self.labels(scorer_id):
            v = found.verdict
            if found.label is None:
                continue
            if v.graded:
                level = ("none", "low", "medium", "high")[int(found.label)]
                rows.append({"input": v.input, "chunk": v.text, "label": level})
                continue
            if v.kind == "claim":
                label = "supported" if found.label else "not_supported"
                rows.append({"claim": v.text, "context": v.context, "label": label})
                if v.input:
                    rows[-1]["input"] = v.input
                continue
            against = "response" if v.scorer_id == "context-utilization" else "ground_truth"
            rows.append(
                {"input": v.input, against: v.reference, "chunk": v.text, "label": int(found.label)}
            )
        return rows

    def review(self, data_set: str, row_id: str, decision: str, row: dict[str, Any]) -> RowReview:
        """Store a decision on a synthesized row (replacing an earlier one), durably."""
        saved = RowReview(
            data_set=data_set,
            row_id=row_id,
            decision=decision,  # type: ignore[arg-type]
            row=row,
            updated=_now(),
        )
        self._write(
            "INSERT OR REPLACE INTO row_reviews VALUES (?, ?, ?, ?, ?)",
            (data_set, row_id, decision, json.dumps(row, ensure_ascii=False), saved.updated),
        )
        return saved

    def reviews(self, data_set: str) -> dict[str, RowReview]:
        """The decisions on ``data_set``'s rows, by row id."""
        rows = self._rows(
            "SELECT row_id, decision, row, updated FROM row_reviews WHERE data_set = ?",
            (data_set,),
        )
        return {
            row_id: RowReview(
                data_set=data_set,
                row_id=row_id,
                decision=decision,
                row=json.loads(row),
                updated=updated,
            )
            for row_id, decision, row, updated in rows
        }

    def written(self, path: str) -> str | None:
        """The SHA-256 of what the store last wrote to ``path`` (a reviewed data set)."""
        found = self._rows("SELECT sha256 FROM written WHERE path = ?", (path,))
        return found[0][0] if found else None

    def record_written(self, path: str, sha256: str) -> None:
        """Remember what was written to ``path``, so that it alone may be replaced."""
        self._write("INSERT OR REPLACE INTO written VALUES (?, ?)", (path, sha256))


def label_store(path: str | os.PathLike[str] | LabelStore | None, near: Path | None) -> LabelStore:
    """The store ``path`` names, else the one in ``near``'s folder (a results file's), else
    in the working directory."""
    if isinstance(path, LabelStore):
        return path
    if path is not None:
        return LabelStore(path)
    folder = Path.cwd() if near is None else (near if near.is_dir() else near.parent)
    return LabelStore(folder)
