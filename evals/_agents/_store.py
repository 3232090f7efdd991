"""Where an agent's live scores go: `ScoreRecord`, in memory or in sqlite3."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, Field, model_validator


class ScoreRecord(BaseModel):
    """One live score of an agent response.

    Attributes:
        agent: The agent's name.
        scorer_key: The key the scorer was attached under.
        scorer_id: The scorer's id.
        run_id: Identifies the generation (shared by every scorer of one response).
        input: What the agent was asked.
        output: The agent's final text.
        score: The score; 0 when skipped; None on error (a run that failed has no
            number — records of earlier versions that stored 0 read back as None).
        reason: The scorer's reason.
        status: ``"scored"``, ``"skipped"`` or ``"error"``.
        error: The error message, if any.
        created_at: Unix time.
    """

    agent: str
    scorer_key: str
    scorer_id: str
    run_id: str
    input: Any = None
    output: str = ""
    score: float | None = 0.0
    reason: str = ""
    status: str = "scored"
    error: str | None = None
    created_at: float = Field(default_factory=time.time)

    @model_validator(mode="after")
    def _no_number_for_a_failure(self) -> ScoreRecord:
        if self.status == "error":
            self.__dict__["score"] = None
        elif self.score is None:
            raise ValueError(f"a {self.status} score record needs a score (None only for errors)")
        return self


class ScoreStore(Protocol):
    """Where live scores go: anything with ``save`` and ``list``."""

    def save(self, record: ScoreRecord) -> None: ...

    def list(
        self, *, agent: str | None = None, scorer_key: str | None = None
    ) -> list[ScoreRecord]: ...


class InMemoryScoreStore:
    """Keeps live scores in a list (the default)."""

    def __init__(self) -> None:
        self._records: list[ScoreRecord] = []
        self._lock = threading.Lock()

    def save(self, record: ScoreRecord) -> None:
        with self._lock:
            self._records.append(record)

    def list(self, *, agent: str | None = None, scorer_key: str | None = None) -> list[ScoreRecord]:
        with self._lock:
            return [
                r
                for r in self._records
                if (agent is None or r.agent == agent)
                and (scorer_key is None or r.scorer_key == scorer_key)
            ]


class SqliteScoreStore:
    """Keeps live scores in a sqlite3 file, one row per score.

    Args:
        path: The database file (created with its folder).
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), check_same_thread=False)
        with self._lock:
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS scores (agent TEXT, scorer_key TEXT, created_at REAL, "
                "record TEXT)"
            )
            self._conn.commit()

    def save(self, record: ScoreRecord) -> None:
        with self._lock:
            self._conn.execute(
                "INSERT INTO scores VALUES (?, ?, ?, ?)",
                (record.agent, record.scorer_key, record.created_at, record.model_dump_json()),
            )
            self._conn.commit()

    def list(self, *, agent: str | None = None, scorer_key: str | None = None) -> list[ScoreRecord]:
        query = "SELECT record FROM scores WHERE (? IS NULL OR agent = ?) AND (? IS NULL OR scorer_key = ?) ORDER BY rowid"
        with self._lock:
            rows = self._conn.execute(query, (agent, agent, scorer_key, scorer_key)).fetchall()
        return [ScoreRecord.model_validate_json(row[0]) for row in rows]
