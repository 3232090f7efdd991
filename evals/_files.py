"""Reading data files: one table of formats (`FORMATS`, suffix → reader) behind every
file scorekit reads rows from — data sets (`load_dataset`), corpora of passages
(`read_corpus`) and calibration rows (`calibrate`) — so each format behaves the same
everywhere, with the same errors. JSONL, a JSON array, CSV and Parquet; text strictly
UTF-8 (a BOM is allowed).

Each reader yields ``(where, row)`` pairs; ``where`` names the file and line (or item) so
that every later error can point at the row. A reader learns what the caller's rows hold
from `Columns` (which fields are lists, which are known); nothing else of the fields.
"""

from __future__ import annotations

import ast
import csv
import io
import json
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from scorers import DatasetError
from scorers._internal import Registry

_BOM = b"\xef\xbb\xbf"


def _not_utf8(
    name: str, data: bytes, exc: UnicodeDecodeError, base: int = 0, line: int | None = None
) -> DatasetError:
    """Bytes that are not UTF-8: the line (counted in ``data`` unless given) and the byte
    offset in the file (``base`` plus the offset in ``data``)."""
    offset = base + exc.start
    line = data[: exc.start].count(b"\n") + 1 if line is None else line
    return DatasetError(
        f"{name} line {line}: not valid UTF-8 at byte offset {offset} "
        f"(byte 0x{data[exc.start]:02x}); save the file as UTF-8"
    )


def _decode(name: str, data: bytes) -> str:
    start = len(_BOM) if data.startswith(_BOM) else 0
    try:
        return data[start:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _not_utf8(name, data[start:], exc, base=start) from None


MAX_DEPTH = 100
"""Nesting levels a data row's free-form values (input, output, metadata) may have: results
files must be able to store every item (pydantic's serializer stops at ~255)."""


def too_deep(where: str, detail: str = "") -> DatasetError:
    """The error for a row nested deeper than `MAX_DEPTH`."""
    return DatasetError(
        f"{where}: {detail or 'a value'} is nested more than {MAX_DEPTH} levels deep; "
        "scorekit stores items as JSON lines up to that depth: flatten it, or keep it as "
        "a JSON string"
    )


class Columns(NamedTuple):
    """What the caller's rows hold, for formats that only hold text cells (CSV).

    Attributes:
        lists: Fields whose cell is a list (JSON, or one plain value).
        known: Every field the caller reads; a flat format puts other columns in
            ``metadata``.
    """

    lists: Collection[str] = ()
    known: Collection[str] = ()


NO_COLUMNS = Columns()
"""Nothing known of the rows: every CSV column read as it is."""

Reader = Callable[[Path, Columns], Iterator[tuple[str, Any]]]
"""A format's reader: a file and what its rows hold → ``(where, row)`` pairs, a row that
cannot be read given as a `DatasetError` in its place (or raised)."""


@dataclass(frozen=True)
class FileFormat:
    """One entry of `FORMATS`.

    Attributes:
        suffix: The file name's ending, lower case with its dot (``".csv"``).
        read: The reader.
        columns: For a flat format (text cells, unknown columns go to ``metadata``), what
            reads its column names, so that a data set can warn about a column that looks
            like a misspelt field; None for formats of nested rows.
    """

    suffix: str
    read: Reader
    columns: Callable[[Path], list[str]] | None = None


FORMATS: Registry[FileFormat] = Registry(
    "formats", "file format", lambda f: f"{f.suffix} files ({f.read.__module__}.{f.read.__name__})"
)
"""Every format scorekit reads rows from, by suffix (`register_format` adds one; the
modules of ``scorekit.formats`` entry points register theirs on first use)."""


def register_format(
    suffix: str,
    read: Reader,
    *,
    columns: Callable[[Path], list[str]] | None = None,
    override: bool = False,
) -> None:
    """Read files ending in ``suffix`` with ``read`` wherever scorekit reads rows: data
    sets, corpora of passages and calibration rows.

    Args:
        suffix: The ending, with its dot (``".tsv"``); a format registered again from the
            same place is replaced.
        read: ``read(path, columns)`` yields ``(where, row)`` pairs: ``where`` names the
            file and row for errors, ``row`` is a dict (or a `DatasetError` for a row that
            cannot be read).
        columns: For a flat format (text cells, as CSV's: unknown columns go to
            ``metadata``), a function reading its column names.
        override: Replace one of scorekit's own formats (``.csv``...) on purpose;
            without it that is refused.

    Raises:
        ConfigError: For a suffix without a leading dot, or one of scorekit's own
            without ``override``.
    """
    from scorers import ConfigError

    if not isinstance(suffix, str) or not suffix.startswith(".") or len(suffix) < 2:
        raise ConfigError(f"a format's suffix starts with a dot, as '.tsv'; got {suffix!r}")
    origin = getattr(read, "__module__", None)
    FORMATS.add(suffix.lower(), FileFormat(suffix.lower(), read, columns), replace=True,
                override=override, origin=None if origin is None or origin.startswith("evals")
                else origin)  # fmt: skip


def format_of(path: Path, what: str) -> FileFormat:
    """The format of ``path``, which must be a file (``what`` names it in errors:
    ``"data file"``, ``"corpus"``, ``"calibration data"``).

    Raises:
        DatasetError: When it does not exist, is a folder, or has no known suffix.
    """
    if not path.exists():
        raise DatasetError(f"{what} {path} does not exist")
    if path.is_dir():
        raise DatasetError(f"{what} {path} is a directory; give a {suffixes()} file")
    found = FORMATS.load().get(path.suffix.lower())
    if found is None:
        raise DatasetError(f"{path}: unsupported {what} type {path.suffix!r}; use {suffixes()}")
    return found


def suffixes() -> str:
    """The known suffixes, as a sentence: ``.jsonl, .json, .csv or .parquet``."""
    names = list(FORMATS.load())
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def read_rows(path: Path, what: str, columns: Columns = NO_COLUMNS) -> Iterator[tuple[str, Any]]:
    """The rows of a file of any registered format (see `format_of` for the errors)."""
    return format_of(path, what).read(path, columns)


def jsonl_rows(path: Path, columns: Columns = NO_COLUMNS) -> Iterator[tuple[str, Any]]:
    """The rows of a JSON Lines file; blank lines are skipped. A line that cannot be read
    comes as a `DatasetError` in place of its row, so that every bad line is reported."""
    offset = 0
    name = path.name
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            line_start = offset
            offset += len(raw)
            where = f"{name} line {number}"
            if number == 1 and raw.startswith(_BOM):
                raw, line_start = raw[len(_BOM) :], line_start + len(_BOM)
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield where, _not_utf8(path.name, raw, exc, base=line_start, line=number)
                continue
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                hint = ""
                if number == 1 and line.lstrip().startswith("["):
                    hint = f" (a JSON array? name the file {path.stem}.json)"
                row = DatasetError(f"{where}: invalid JSON: {exc}{hint}")
            except RecursionError:
                row = too_deep(where)
            yield where, row


def json_rows(path: Path, columns: Columns = NO_COLUMNS) -> Iterator[tuple[str, Any]]:
    """The items of a JSON array (or of ``{"items": [...]}``)."""
    try:
        data = json.loads(_decode(path.name, path.read_bytes()))
    except ValueError as exc:
        if isinstance(exc, DatasetError):
            raise
        raise DatasetError(f"{path.name}: invalid JSON: {exc}") from None
    except RecursionError:
        raise too_deep(path.name) from None
    if isinstance(data, Mapping) and isinstance(data.get("items"), list):
        data = data["items"]
    if not isinstance(data, list):
        raise DatasetError(f"{path.name}: expected a JSON array of items (or {{'items': [...]}})")
    for number, row in enumerate(data, start=1):
        yield f"{path.name} item {number}", row


def csv_rows(path: Path, columns: Columns = NO_COLUMNS) -> Iterator[tuple[str, Any]]:
    """The rows of a CSV file with a header line.

    An empty cell is a missing field. A cell of a list column is JSON (``["a", "b"]``),
    or else one plain value (a list of one); a cell that starts with ``[`` must be JSON. Cells of other known columns that start with
    ``[`` or ``{`` are read as JSON when they parse. Unknown columns go to ``metadata``,
    as text.
    """
    list_columns, known_columns = columns
    text = _decode(path.name, path.read_bytes())
    csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))  # a cell may be long
    reader = csv.DictReader(io.StringIO(text, newline=""))
    for row in reader:
        number = reader.line_num
        parsed: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for column, value in row.items():
            if column is None:
                raise DatasetError(f"{path.name} line {number}: more cells than columns")
            if not value:
                continue
            if column not in known_columns:
                extra[column] = value
            elif column == "metadata":
                try:
                    parsed[column] = json.loads(value)
                except ValueError as exc:
                    raise DatasetError(
                        f"{path.name} line {number}: field 'metadata' must be a JSON object: {exc}"
                    ) from None
            else:
                where = f"{path.name} line {number}"
                parsed[column] = _cell(where, column, value, column in list_columns)
        if extra:
            metadata = parsed.setdefault("metadata", {})
            if not isinstance(metadata, dict):
                raise DatasetError(f"{path.name} line {number}: field 'metadata' must be an object")
            parsed["metadata"] = {**extra, **metadata}
        yield f"{path.name} line {number}", parsed


def csv_columns(path: Path) -> list[str]:
    """A CSV file's column names ([] when its first line cannot be read: the reader then
    says what is wrong)."""
    with path.open(encoding="utf-8-sig", newline="") as handle:
        try:
            return next(csv.reader(handle), [])
        except (csv.Error, UnicodeDecodeError):
            return []


def _python_literal(value: str) -> Any:
    """A cell ``DataFrame.to_csv()`` wrote from a Python value (``['a', 'b']``), read
    safely (`ast.literal_eval`: literals only, nothing is run); None when it is not one."""
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _cell(where: str, column: str, value: str, is_list: bool) -> Any:
    if is_list or value[:1] in "[{":
        try:
            parsed = json.loads(value)
        except RecursionError:
            raise too_deep(where, f"field '{column}'") from None
        except ValueError as exc:
            literal = _python_literal(value) if value.lstrip()[:1] in "[{" else None
            if isinstance(literal, (list, dict)):
                return literal
            if is_list and value.lstrip()[:1] == "[":
                raise DatasetError(
                    f"{where}: field '{column}' starts like a list but is neither JSON nor a "
                    f"Python list literal: {exc}"
                ) from None
            return [value] if is_list else value
        if is_list and not isinstance(parsed, (list, dict)):
            return [value]
        return parsed
    return value


def parquet_rows(path: Path, columns: Columns = NO_COLUMNS) -> Iterator[tuple[str, Any]]:
    """The rows of a Parquet file (pyarrow, an optional extra: ``scorekit[parquet]``);
    nulls are missing fields."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise DatasetError(
            f"{path.name}: reading Parquet needs pyarrow: pip install 'scorekit[parquet]'"
        ) from None
    try:
        table = pq.read_table(path)
    except Exception as exc:  # pyarrow's errors have no common base worth naming
        raise DatasetError(f"{path.name}: not a readable Parquet file: {exc}") from None
    maps = [f.name for f in table.schema if pa.types.is_map(f.type)]
    for number, row in enumerate(table.to_pylist(), start=1):
        for name in maps:  # pyarrow gives a map cell as (key, value) pairs
            if row.get(name) is not None:
                row[name] = dict(row[name])
        yield f"{path.name} row {number}", {k: v for k, v in row.items() if v is not None}


register_format(".jsonl", jsonl_rows)
register_format(".json", json_rows)
register_format(".csv", csv_rows, columns=csv_columns)
register_format(".parquet", parquet_rows)
