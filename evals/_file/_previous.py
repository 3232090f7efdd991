"""A results file's items by id, read from disk when asked: what a big run resumes from.

`read_file` parses every line into an `ItemResult` up front; a million-item file would
need tens of GB that way. `PreviousItems` keeps each id's byte offset (the last line per
id wins) and parses a line only when it is looked up.
"""

from __future__ import annotations

import bisect
import json
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from scorers import ConfigError

from ._compact import expand, grow
from ._header import HEADER_PREFIX, RunHeader, parse_header
from ._items import ItemResult

COMPACT_PREFIX = b'{"$compact":1,'
"""How a compact line (``store_prompts=False``) starts."""


def line_item(raw: bytes, header: RunHeader | None) -> ItemResult:
    """The `ItemResult` of one result line (``header``: the one before it in its file).

    Raises:
        ValidationError: When the line is not a result line.
    """
    return expand(parsed_line(raw, header))


def parsed_line(raw: bytes, header: RunHeader | None) -> ItemResult:
    """One line as an `ItemResult`, its compact form grown back (references not yet
    expanded)."""
    if not raw.startswith(COMPACT_PREFIX):
        return ItemResult.model_validate_json(raw)
    try:
        data = json.loads(raw)
    except ValueError:
        return ItemResult.model_validate_json(raw)  # raises the ValidationError
    del data["$compact"]
    grow(data, header)
    return ItemResult.model_validate(data)


class PreviousItems(Mapping[str, ItemResult]):
    """The items of the results file at ``path`` by id, parsed on lookup.

    Attributes:
        headers: The file's headers in order.
        good_end: The byte offset where its complete lines end (a last line cut short by
            a crash lies beyond it).
    """

    def __init__(self, path: Path):
        self.path = path
        self.headers: list[RunHeader] = []
        self._offsets: dict[str, int] = {}
        self._header_starts: list[int] = []
        self.good_end = 0
        self._index()

    def _index(self) -> None:
        size = self.path.stat().st_size
        problems: list[str] = []
        offset = 0
        with self.path.open("rb") as handle:
            for number, raw in enumerate(handle, start=1):
                start, offset = offset, offset + len(raw)
                if not raw.strip():
                    self.good_end = offset
                    continue
                if raw.startswith(HEADER_PREFIX) and raw.endswith(b"\n"):
                    parsed = parse_header(raw)
                    if parsed is not None:
                        self.headers.append(parsed)
                        self._header_starts.append(start)
                    self.good_end = offset
                    continue
                item_id = _item_id(raw)
                if item_id is None:
                    if offset == size and not raw.endswith(b"\n"):
                        break  # cut short by a crash: dropped, and rewritten on resume
                    problems.append(f"line {number} is not a result line")
                    self.good_end = offset
                    continue
                if not raw.endswith(b"\n"):
                    break
                self.good_end = offset
                self._offsets[item_id] = start
        if problems and not self._offsets:
            raise ConfigError(
                f"{self.path} is not a scorekit results file ({problems[0]}); give a file "
                "written by run_evals(results_path=...) (CLI: `scorekit run --out`)"
            )
        for problem in problems:
            print(f"scorekit: {self.path} {problem}; skipped", file=sys.stderr)

    def __getitem__(self, item_id: str) -> ItemResult:
        start = self._offsets[item_id]
        with self.path.open("rb") as handle:
            handle.seek(start)
            raw = handle.readline()
        at = bisect.bisect_right(self._header_starts, start) - 1
        return line_item(raw, self.headers[at] if at >= 0 else None)

    def in_file_order(self) -> Iterator[ItemResult]:
        """Every item (its last line), in the order of those lines, read as a stream."""
        finals = set(self._offsets.values())
        header_at = dict(zip(self._header_starts, self.headers, strict=True))
        header: RunHeader | None = None
        offset = 0
        with self.path.open("rb") as handle:
            for raw in handle:
                start, offset = offset, offset + len(raw)
                if start in header_at:
                    header = header_at[start]
                elif start in finals:
                    yield line_item(raw, header)

    def line_offsets(self) -> tuple[list[int], list[int]]:
        """Where each item's last line starts, in file order, and where each header
        starts."""
        return sorted(self._offsets.values()), list(self._header_starts)

    def __iter__(self) -> Iterator[str]:
        return iter(self._offsets)

    def __len__(self) -> int:
        return len(self._offsets)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._offsets


def _item_id(raw: bytes) -> str | None:
    try:
        data = json.loads(raw)
        item_id = data["item"]["id"]
    except (ValueError, KeyError, TypeError):
        return None
    return item_id if isinstance(item_id, str) else None


__all__ = ["PreviousItems"]
