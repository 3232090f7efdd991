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

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from scorers import ConfigError

from ._judged import SPLIT, JudgeVerdict, Label, by_question, people_label
from ._labels_db import (
    ANNOTATOR_LIMIT,
    NOTE_LIMIT,
    SCHEMA,
    calibration_row,
    retrying,
    tables,
    upgrade,
)
from ._own_db import APPLICATION_ID, foreign, own_database

LABELS_FILE = "scorekit-labels.sqlite"
"""The labels database's name in a folder of runs."""


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
        if not foreign(connection, set(tables())):
            upgrade(connection)
            if app == APPLICATION_ID:
                return
        try:
            with _SETUP:
                retrying(lambda: own_database(self.path, SCHEMA, rebuild=False).close())
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
            retrying(lambda: self._prepare(connection, write))
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
                connection.executescript(SCHEMA)

    def _write(self, sql: str, args: tuple[Any, ...]) -> None:
        with self._connect(write=True) as connection:
            assert connection is not None
            retrying(lambda: connection.execute(sql, args))

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._connect(write=False) as connection:
            if connection is None:
                return []
            try:
                return retrying(lambda: connection.execute(sql, args).fetchall())
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    return []
                raise

    def save(
        self,
        verdict: JudgeVerdict,
        label: bool | int | None,
        *,
        annotator: str = "",
        note: str = "",
        blind: bool = False,
    ) -> Label:
        """Store a person's label on ``verdict`` (replacing their earlier one; other
        people's labels on it are kept), durably: a bool (or None) for a yes/no verdict,
        a grade 0-3 (or None) for a graded one.

        Args:
            verdict: The verdict labelled.
            label: The label.
            annotator: Who labels (at most `ANNOTATOR_LIMIT` characters; spaces at
                either end dropped).
            note: Their note (at most `NOTE_LIMIT` characters).
            blind: Whether they answered before seeing the judge's verdict.

        Raises:
            ConfigError: For a label of the other kind, or a name or note too long.
        """
        if label is not None and verdict.graded != (
            isinstance(label, int) and not isinstance(label, bool)
        ):
            want = "a grade 0-3" if verdict.graded else "True or False"
            raise ConfigError(f"a {verdict.kind} verdict is labelled with {want}; got {label!r}")
        if verdict.graded and label is not None and not 0 <= int(label) <= 3:
            raise ConfigError(f"a grade is 0 (none) to 3 (high); got {label!r}")
        annotator, note = annotator.strip(), note.strip()
        for what, text, limit in (
            ("annotator", annotator, ANNOTATOR_LIMIT),
            ("note", note, NOTE_LIMIT),
        ):
            if len(text) > limit:
                raise ConfigError(f"an {what} is at most {limit} characters; got {len(text)}")
        saved = Label(
            key=verdict.key,
            verdict=verdict,
            label=label,
            updated=_now(),
            annotator=annotator,
            note=note,
            blind=blind,
        )
        self._write(
            "INSERT INTO labels VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (key, annotator) DO UPDATE SET verdict = excluded.verdict, "
            "label = excluded.label, note = excluded.note, blind = excluded.blind, "
            "updated = excluded.updated",
            (
                saved.key,
                annotator,
                verdict.scorer_id,
                verdict.kind,
                verdict.judge_model,
                verdict.prompt_version,
                verdict.model_dump_json(),
                None if label is None else int(label),
                note,
                int(blind),
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
        """The stored labels (each person's), oldest first, those of one scorer / judge /
        prompt when given."""
        where, args = [], []
        for column, value in (
            ("scorer_id", scorer_id),
            ("judge_model", judge_model),
            ("prompt_version", prompt_version),
        ):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        sql = "SELECT key, verdict, label, updated, annotator, note, blind FROM labels"
        sql += (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY updated, key"
        found = []
        for key, verdict, label, updated, annotator, note, blind in self._rows(sql, tuple(args)):
            judged = JudgeVerdict.model_validate_json(verdict)
            kept = None if label is None else int(label) if judged.graded else bool(label)
            found.append(
                Label(
                    key=key,
                    verdict=judged,
                    label=kept,
                    updated=updated,
                    annotator=annotator,
                    note=note,
                    blind=bool(blind),
                )
            )
        return found

    def keys(self, annotator: str | None = None) -> set[str]:
        """The keys of every labelled verdict (those ``annotator`` labelled, when given)."""
        if annotator is None:
            return {key for (key,) in self._rows("SELECT DISTINCT key FROM labels")}
        rows = self._rows("SELECT key FROM labels WHERE annotator = ?", (annotator.strip(),))
        return {key for (key,) in rows}

    def annotators(self) -> dict[str, int]:
        """Who labelled in this folder, with how many labels each made."""
        rows = self._rows("SELECT annotator, COUNT(*) FROM labels GROUP BY annotator")
        return dict(rows)

    def judges(self, scorer_id: str) -> dict[tuple[str, str], int]:
        """Per (judge model, prompt version), how many decided labels ``scorer_id`` has."""
        rows = self._rows(
            "SELECT judge_model, prompt_version, COUNT(*) FROM labels "
            "WHERE scorer_id = ? AND label IS NOT NULL GROUP BY judge_model, prompt_version",
            (scorer_id,),
        )
        return {(model, prompt): n for model, prompt, n in rows}

    def calibration_rows(
        self, scorer_id: str | None = None, *, each: bool = False
    ) -> list[dict[str, Any]]:
        """The decided labels as `calibrate`'s rows: claim rows ``{"claim", "context",
        "label": "supported" | "not_supported"}`` and chunk rows ``{"input",
        "ground_truth", "chunk", "label": 0 | 1}`` (``"response"`` instead of
        ``"ground_truth"`` for context utilization's; relevance rows ``{"input", "chunk",
        "label": level}``).

        Args:
            scorer_id: Only this scorer's verdicts.
            each: One row per person's label, with its ``annotator``, ``note`` and
                ``blind`` (when set) — the export. By default one row per question with
                the people's label (`people_label`: a question people split on is left
                out), for calibration.
        """
        rows: list[dict[str, Any]] = []
        for labels in by_question(self.labels(scorer_id)).values():
            for found in labels if each else labels[:1]:
                label = found.label if each else people_label(labels)
                if label is None or label == SPLIT:
                    continue
                row = calibration_row(found.verdict, label)
                if each:
                    extra = {"annotator": found.annotator, "note": found.note, "blind": found.blind}
                    row.update({k: v for k, v in extra.items() if v})
                rows.append(row)
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
