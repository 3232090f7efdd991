"""On-disk cache of validated judge outputs (stdlib sqlite3).

Only the validated JSON output, token usage and cost are stored, keyed by a sha256 of
everything that determines the answer. API keys and headers never reach the file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from .._caller import warn_user
from .._types import JudgeCall

if TYPE_CHECKING:
    from collections.abc import Callable


M = TypeVar("M", bound=BaseModel)

CACHE_VERSION = 1


def default_cache_dir() -> Path:
    """``$SCOREKIT_CACHE_DIR`` if set, else ``~/.cache/scorekit``."""
    env = os.environ.get("SCOREKIT_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "scorekit"


def cache_file(path: str | os.PathLike[str] | None = None) -> Path:
    """The database file for ``path``: a directory gets ``judge-cache.sqlite3`` inside it."""
    target = Path(path).expanduser() if path is not None else default_cache_dir()
    if target.suffix not in (".sqlite3", ".sqlite", ".db"):
        target = target / "judge-cache.sqlite3"
    return target


def cache_key(payload: dict[str, Any]) -> str:
    """The sha256 of the canonical JSON of ``payload`` plus the cache version."""
    canonical = json.dumps(
        {"cache_version": CACHE_VERSION, **payload},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        default=str,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class JudgeCache:
    """A sqlite3 key/value store shared by every judge pointing at the same file.

    A damaged cache never stops a run: an entry that does not read back as a JSON object
    is a miss (and is replaced by the next answer); a file that is not a database, or
    whose pages are damaged, is moved aside (``<name>.corrupt-<time>``, with one warning
    naming both files) and a fresh cache takes its place.

    Args:
        path: The database file; a directory gets ``judge-cache.sqlite3`` inside it.
            Defaults to `default_cache_dir`.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None):
        target = cache_file(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        self.path = target
        self._lock = threading.Lock()
        with self._lock:
            try:
                self._conn = self._open()
            except sqlite3.DatabaseError as exc:
                self._conn = self._replace(exc)

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS judge_cache ("
                "key TEXT PRIMARY KEY, value TEXT NOT NULL, created REAL NOT NULL)"
            )
            conn.commit()
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def _replace(self, error: sqlite3.DatabaseError) -> sqlite3.Connection:
        """Move the damaged file aside and open a fresh one (the lock held)."""
        with contextlib.suppress(Exception):
            self._conn.close()
        aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time() * 1000)}")
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                Path(f"{self.path}{suffix}").rename(f"{aside}{suffix}")
        warn_user(
            f"the judge cache {self.path} is damaged ({error}); it was moved to {aside} "
            "and a fresh cache is used",
            RuntimeWarning,
        )
        return self._open()

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry for ``key``, or None (also for an entry that does not read
        back as a JSON object)."""
        with self._lock:
            try:
                row = self._conn.execute(
                    "SELECT value FROM judge_cache WHERE key = ?", (key,)
                ).fetchone()
            except sqlite3.DatabaseError as exc:
                self._conn = self._replace(exc)
                return None
        if row is None:
            return None
        try:
            value = json.loads(row[0])
        except (TypeError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def set(self, key: str, value: dict[str, Any]) -> None:
        """Store ``value`` (JSON-serialisable) under ``key``."""
        data = json.dumps(value, ensure_ascii=False)
        with self._lock:
            for attempt in (1, 2):
                try:
                    self._conn.execute(
                        "INSERT OR REPLACE INTO judge_cache (key, value, created) VALUES (?, ?, ?)",
                        (key, data, time.time()),
                    )
                    self._conn.commit()
                    return
                except sqlite3.DatabaseError as exc:
                    if attempt == 2:
                        raise
                    self._conn = self._replace(exc)

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM judge_cache").fetchone()[0])

    def clear(self) -> None:
        """Delete every entry."""
        with self._lock:
            self._conn.execute("DELETE FROM judge_cache")
            self._conn.commit()


_shared: dict[Path, JudgeCache] = {}
_shared_lock = threading.Lock()


def open_cache(path: str | os.PathLike[str] | None = None) -> JudgeCache:
    """A process-wide `JudgeCache` for ``path`` (one connection per file)."""
    target = cache_file(path)
    resolved = target.resolve()
    with _shared_lock:
        cache = _shared.get(resolved)
        if cache is None:
            cache = _shared[resolved] = JudgeCache(target)
        return cache


def cached_answer(
    cache: JudgeCache, key: str, schema: type[M], check: Callable[[M], None] | None
) -> tuple[M, Any] | None:
    """The validated value stored under ``key`` and its raw JSON, or None (also when the
    stored answer no longer passes ``schema`` or ``check``)."""
    hit = cache.get(key)
    if hit is None:
        return None
    try:
        value = schema.model_validate(hit["output"])
        if check is not None:
            check(value)
    except (ValidationError, ValueError, KeyError):
        return None
    return value, hit["output"]


def cached_call(output: Any, *, step: str, model: str, messages: list[dict[str, Any]]) -> JudgeCall:
    """The `JudgeCall` that stands for a cache hit (no request, no cost)."""

    response = json.dumps(output, ensure_ascii=False)
    return JudgeCall(
        step=step, model=model, cached=True, cost=0.0, messages=messages, response=response
    )


def store_answer(cache: JudgeCache, key: str, value: BaseModel, calls: list[JudgeCall]) -> None:
    """Keep a validated answer with the usage and cost of the calls that produced it."""
    costs = [c.cost for c in calls]
    cache.set(
        key,
        {
            "output": value.model_dump(mode="json"),
            "usage": {
                "prompt_tokens": sum(c.prompt_tokens for c in calls),
                "completion_tokens": sum(c.completion_tokens for c in calls),
            },
            "cost": None if None in costs else float(sum(c for c in costs if c is not None)),
        },
    )


def resolve_cache(cache: bool | str | os.PathLike[str] | JudgeCache | None) -> JudgeCache | None:
    """The cache a ``cache=`` option names: True for the default (a warning and None when
    it cannot be opened), False or None for none, a path, or a `JudgeCache`."""
    if isinstance(cache, JudgeCache):
        return cache
    if cache is True:
        try:
            return open_cache()
        except (OSError, sqlite3.Error) as exc:  # e.g. a read-only home directory
            warn_user(
                f"scorekit: judge cache disabled, cannot open it ({exc}); set "
                "SCOREKIT_CACHE_DIR to a writable folder or pass cache=False"
            )
            return None
    if cache is False or cache is None:
        return None
    return open_cache(cache)
