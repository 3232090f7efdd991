"""What `scorekit view` knows of a folder: each results file's header, summary and the
byte offsets of its items, read once and kept in ``.scorekit-index.sqlite``.

The index is a cache: it can be deleted (or rebuilt with ``--rebuild-index``) at any time
and holds nothing that is not in the files. A file is read again when its size or
modification time changes; new files are found at each listing. Reading a file runs in
one background thread, so the listing answers at once and shows big files as
"indexing" until they are done. A file that cannot be read (any failure, a number JSON
cannot carry) is listed as failed with why, and the others are read as ever.

scorekit writes only an index it made: one marked with its SQLite ``application_id``
(or an unmarked one holding nothing but its ``files`` table, from earlier versions).
An index of another shape is rebuilt; a link, or another application's database under
that name, is left alone and the index is kept in memory.
"""

from __future__ import annotations

import array
import bisect
import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scorers import ConfigError

from .._file._header import HEADER_PREFIX, RunHeader, parse_header
from .._file._items import ItemResult
from .._file._previous import PreviousItems, line_item
from .._own_db import own_database
from ._rows import light_line

INDEX_FILE = ".scorekit-index.sqlite"
SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, version INTEGER,
    kind TEXT, record TEXT, offsets BLOB, header_starts BLOB, light BLOB
);
"""


class Entry:
    """One file of the folder as the index holds it."""

    def __init__(self, path: str, kind: str, record: dict[str, Any], offsets: bytes, starts: bytes):
        self.path, self.kind, self.record = path, kind, record
        self.offsets = array.array("q", offsets)
        self.header_starts = array.array("q", starts)


def file_kind(path: Path) -> str:
    """``"run"`` (a results file), ``"data_set"`` (a set `synthesize` wrote: its
    ``.log`` lies beside it) or ``"other"``, from the first line."""
    try:
        with path.open("rb") as handle:
            first = handle.readline(1 << 20)
    except OSError:
        return "other"
    if first.startswith(HEADER_PREFIX) or b'"scorer_results"' in first:
        return "run"
    if path.with_name(path.name + ".log").is_file() and first.lstrip().startswith(b"{"):
        return "data_set"
    return "other"


def read_run(path: Path, name: str) -> tuple[dict[str, Any], bytes, bytes, bytes | None]:
    """A results file's record (header, summary, items), its items' line offsets in file
    order, its headers' offsets, and its items' light lines (`_rows.light_line`, JSON;
    None when the items were not read one by one)."""
    from .._stats._summarize import SummaryBuilder

    previous = PreviousItems(path)
    header = previous.headers[-1] if previous.headers else None
    light: bytes | None = None
    if header is not None and header.scorers:
        builder = SummaryBuilder(list(header.scorers), None)
        lines = []
        for item in previous.in_file_order():
            builder.add(item, ())
            lines.append(light_line(item))
        summary = builder.finish(0.0, 0, 0, 0)
        try:
            light = json.dumps(lines, ensure_ascii=False, allow_nan=False).encode()
        except ValueError:  # a value JSON cannot carry: the rows are read from the file
            light = None
    else:
        from .._results import read_results

        summary = read_results(path, mixed=True).summary
    record = {
        "path": name,
        "header": None if header is None else header.model_dump(mode="json"),
        "summary": summary.model_dump(mode="json"),
        "items": len(previous),
        "mtime": path.stat().st_mtime,
    }
    offsets, starts = previous.line_offsets()
    packed = array.array("q", offsets).tobytes(), array.array("q", starts).tobytes()
    return record, *packed, light


def read_data_set(path: Path, name: str) -> dict[str, Any]:
    """A synthesized set's record: its row count."""
    with path.open("rb") as handle:
        rows = sum(1 for raw in handle if raw.strip())
    return {"path": name, "rows": rows, "mtime": path.stat().st_mtime}


class RunIndex:
    """The runs and data sets of ``root`` (recursively; hidden files and folders skipped).

    Args:
        root: The folder.
        persist: Keep the index in ``root/.scorekit-index.sqlite`` (else in memory only;
            also when the folder cannot be written).
    """

    def __init__(self, root: str | os.PathLike[str], persist: bool = True):
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise ConfigError(f"{root} is not a folder; give the folder of your results files")
        self._lock = threading.Lock()
        self._entries: dict[str, Entry] = {}
        self._stats: dict[str, tuple[int, int]] = {}
        self._pending: dict[str, tuple[int, int]] = {}
        self._failed: dict[str, str] = {}
        self._wake = threading.Condition(self._lock)
        self._db = self._open(persist)
        self._load()
        threading.Thread(target=self._work, name="scorekit-index", daemon=True).start()

    def _open(self, persist: bool) -> sqlite3.Connection:
        self.note = ""
        if persist:
            try:
                return own_database(self.root / INDEX_FILE, _SCHEMA, rebuild=True)
            except (ConfigError, sqlite3.Error, OSError) as exc:
                self.note = f"the index is kept in memory: {exc}"
        db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        db.executescript(_SCHEMA)
        return db

    def _load(self) -> None:
        try:
            rows = self._db.execute(
                "SELECT path, size, mtime_ns, kind, record, offsets, header_starts FROM files "
                "WHERE version = ?",
                (SCHEMA_VERSION,),
            )
            for path, size, mtime, kind, record, offsets, starts in rows.fetchall():
                found = json.loads(record)
                self._stats[path] = (size, mtime)
                if kind == "other":
                    if found.get("failed"):
                        self._failed[path] = found["failed"]
                    continue
                self._entries[path] = Entry(path, kind, found, offsets, starts)
        except sqlite3.DatabaseError:  # a damaged cache is rebuilt
            self.rebuild()

    def rebuild(self) -> None:
        """Forget everything and read every file again."""
        with self._lock:
            self._db.execute("DELETE FROM files")
            self._entries.clear()
            self._stats.clear()
            self._failed.clear()

    def _files(self) -> Iterator[tuple[str, Path]]:
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            within = Path(folder).relative_to(self.root).as_posix()
            prefix = "" if within == "." else within + "/"
            for name in sorted(files):
                if name.endswith(".jsonl") and not name.startswith("."):
                    path = Path(folder, name)
                    # no link out of the folder (os.walk does not enter linked folders)
                    if not path.is_symlink() or path.resolve().is_relative_to(self.root):
                        yield prefix + name, path

    def scan(self) -> dict[str, Any]:
        """Find new, changed and removed files; start reading the new and changed ones.
        Returns what is known now: ``runs``, ``data_sets``, ``indexing`` (paths still
        being read) and ``failed`` (path → why)."""
        seen = set()
        with self._lock:
            for name, path in self._files():
                try:
                    stat = path.stat()
                except OSError:
                    continue
                seen.add(name)
                current = (stat.st_size, stat.st_mtime_ns)
                if self._stats.get(name) != current and self._pending.get(name) != current:
                    self._pending[name] = current
                    self._wake.notify()
            for gone in set(self._entries) - seen:
                del self._entries[gone]
                self._stats.pop(gone, None)
                self._db.execute("DELETE FROM files WHERE path = ?", (gone,))
            entries = list(self._entries.values())
            return {
                "runs": [e.record for e in entries if e.kind == "run"],
                "data_sets": [e.record for e in entries if e.kind == "data_set"],
                "indexing": sorted(self._pending),
                "failed": {k: v for k, v in self._failed.items() if k in seen},
            }

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._pending:
                    self._wake.wait()
                name, stat = next(iter(self._pending.items()))
            try:
                self._index_one(name, stat)
            except Exception as exc:  # never the end of the reader: that file fails
                with self._lock:
                    self._pending.pop(name, None)
                    self._stats[name] = stat
                    self._failed[name] = f"{type(exc).__name__}: {exc}"
                    self._entries.pop(name, None)

    def _index_one(self, name: str, stat: tuple[int, int]) -> None:
        path = self.root / name
        record: dict[str, Any] = {}
        kind, offsets, starts, failure = "other", b"", b"", ""
        light: bytes | None = None
        try:
            kind = file_kind(path)
            if kind == "run":
                record, offsets, starts, light = read_run(path, name)
            elif kind == "data_set":
                record = read_data_set(path, name)
            json.dumps(record, allow_nan=False)  # what the viewer sends must be JSON
        except RecursionError:
            kind, failure = "other", "a line nests deeper than a results file can (not read)"
        except ValueError as exc:
            if "Out of range float" in str(exc):
                exc = ValueError("it holds a number JSON cannot carry (inf or NaN)")
            kind, failure = "other", f"{type(exc).__name__}: {exc}"
        except Exception as exc:
            kind, failure = "other", f"{type(exc).__name__}: {exc}"
        if failure:
            record = {"path": name, "failed": failure}
        with self._lock:
            if self._pending.get(name) == stat:
                del self._pending[name]
            self._stats[name] = stat
            if failure:
                self._failed[name] = failure
            else:
                self._failed.pop(name, None)
            if kind == "other":
                self._entries.pop(name, None)
            else:
                self._entries[name] = Entry(name, kind, record, offsets, starts)
            self._db.execute(
                "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (name, *stat, SCHEMA_VERSION, kind, json.dumps(record), offsets, starts, light),
            )

    def wait(self, timeout: float = 60.0) -> None:
        """Block until every file found so far is read (tests, benchmarks)."""
        import time

        deadline = time.monotonic() + timeout
        while self._pending and time.monotonic() < deadline:
            time.sleep(0.02)

    def entry(self, name: str, kind: str) -> Entry:
        """The indexed file ``name`` (a path relative to the folder) of ``kind``.

        Raises:
            KeyError: When the folder holds no such file (paths outside it included).
        """
        with self._lock:
            found = self._entries.get(name)
        if found is None:  # a page opened at this file before the background read it
            found = self._read_now(name)
        if found is None or found.kind != kind:
            raise KeyError(name)
        return found

    def _read_now(self, name: str) -> Entry | None:
        """Read the folder's file ``name`` at once, when it is one the index would read."""
        path = dict(self._files()).get(name)
        if path is None:
            return None
        try:
            stat = path.stat()
        except OSError:
            return None
        self._index_one(name, (stat.st_size, stat.st_mtime_ns))
        with self._lock:
            return self._entries.get(name)

    def path(self, entry: Entry) -> Path:
        """The file of an entry, checked to lie inside the folder."""
        path = (self.root / entry.path).resolve()
        if not path.is_relative_to(self.root):
            raise KeyError(entry.path)
        return path

    def items(self, entry: Entry, start: int, count: int) -> list[ItemResult]:
        """Items ``start`` to ``start + count`` of a run, in file order, read by offset."""
        return list(self.iter_items(entry, start, count))

    def iter_items(
        self, entry: Entry, start: int = 0, count: int | None = None
    ) -> Iterator[ItemResult]:
        """The same as a stream (every item from ``start`` when ``count`` is None)."""
        end = len(entry.offsets) if count is None else start + count
        with self.path(entry).open("rb") as handle:
            headers = _headers(handle, entry.header_starts)
            for offset in entry.offsets[start:end]:
                handle.seek(offset)
                raw = handle.readline()
                at = bisect.bisect_right(entry.header_starts, offset) - 1
                yield line_item(raw, headers[at] if at >= 0 else None)

    def light_lines(self, entry: Entry) -> list[dict[str, Any]] | None:
        """The run's light lines the index kept when it first read the file (`read_run`),
        while ``entry`` is still the file's current version; else None."""
        with self._lock:
            if self._entries.get(entry.path) is not entry:
                return None
            found = self._db.execute(
                "SELECT light FROM files WHERE path = ?", (entry.path,)
            ).fetchone()
        if found is None or found[0] is None:
            return None
        lines = json.loads(found[0])
        return lines if len(lines) == len(entry.offsets) else None

    def iter_lines(self, entry: Entry) -> Iterator[dict[str, Any]]:
        """Every item's results line as JSON, unvalidated, in file order (light readers:
        about eight times faster than `iter_items`)."""
        with self.path(entry).open("rb") as handle:
            for offset in entry.offsets:
                handle.seek(offset)
                yield json.loads(handle.readline())


def _headers(handle: Any, starts: array.array) -> list[RunHeader | None]:
    found: list[RunHeader | None] = []
    for offset in starts:
        handle.seek(offset)
        found.append(parse_header(handle.readline()))
    return found
