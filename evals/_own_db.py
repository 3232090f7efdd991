"""SQLite files scorekit makes (the viewer's index, the labels): marked as scorekit's,
and never written when they are not.

A database scorekit creates carries SQLite's ``application_id`` `APPLICATION_ID`. One
found unmarked is taken as scorekit's only when it holds nothing but scorekit's own
tables (an earlier version's file); a link, a file that is not SQLite, or another
application's database is refused before anything is written to it — no journal mode
changed, no table added, no row deleted.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from scorers import ConfigError

APPLICATION_ID = 0x736B6978
"""SQLite's ``application_id`` of every database scorekit makes ("skix")."""


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in db.execute(f'PRAGMA table_info("{table}")')]


def _tables(db: sqlite3.Connection) -> set[str]:
    rows = db.execute("SELECT name FROM sqlite_master WHERE type='table'")
    return {n for (n,) in rows if not n.startswith("sqlite_")}


def foreign(db: sqlite3.Connection, ours: set[str]) -> str:
    """Why the database ``db`` is not scorekit's of this kind ("" when it is): marked by
    another application, or holding tables that are not ``ours`` (another application's,
    or scorekit's other file: the index is no labels database)."""
    (app,) = db.execute("PRAGMA application_id").fetchone()
    found = _tables(db)
    if app in (0, APPLICATION_ID) and found <= ours:
        return ""
    return (
        f"another application's database (its tables: {', '.join(sorted(found)) or 'none'}); "
        "scorekit writes only a file it made"
    )


def tables_of(schema: str) -> set[str]:
    """The tables ``schema`` makes."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(schema)
        return _tables(db)
    finally:
        db.close()


def own_database(path: Path, schema: str, *, rebuild: bool) -> sqlite3.Connection:
    """A connection to the scorekit database at ``path``, its tables made as ``schema``
    says (the file is created and marked when missing or empty).

    Args:
        path: The file.
        schema: ``CREATE TABLE IF NOT EXISTS ...`` statements.
        rebuild: An own database whose tables have another shape (another version's) is
            emptied and made again; else that is refused.

    Raises:
        ConfigError: ``path`` is a link, not a SQLite database, another application's
            (marked otherwise, or holding tables that are not scorekit's), or (without
            ``rebuild``) scorekit's of another shape. The message says which.
    """
    if path.is_symlink():
        raise ConfigError(f"{path} is a link; scorekit writes only a file it made")
    expected = sqlite3.connect(":memory:")
    expected.executescript(schema)
    ours = _tables(expected)
    shapes = {table: _columns(expected, table) for table in ours}
    expected.close()
    db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
    try:
        why = foreign(db, ours)
        if why:
            raise ConfigError(f"{path} is {why}")
        (app,) = db.execute("PRAGMA application_id").fetchone()
        found = _tables(db)
        if any(_columns(db, t) not in ([], shapes[t]) for t in found & ours):
            if not rebuild:
                raise ConfigError(
                    f"{path} is a scorekit database of another shape (another version's); "
                    "move it aside"
                )
            for table in found:
                db.execute(f'DROP TABLE IF EXISTS "{table}"')
        if app != APPLICATION_ID:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.executescript(schema)
        return db
    except sqlite3.DatabaseError as exc:
        db.close()
        if isinstance(exc, sqlite3.OperationalError) and (
            "locked" in str(exc) or "busy" in str(exc)
        ):
            raise  # another connection holds it: the caller waits and asks again
        raise ConfigError(f"{path} cannot be read as a SQLite database ({exc})") from None
    except BaseException:
        db.close()
        raise
