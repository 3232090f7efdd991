"""The items of a run, validated before any work starts, held or streamed.

Held: every `EvalItem` in memory (data given as a list, or ``keep_items=True``).
Streamed (``keep_items=False`` with a data file): the file is validated once keeping only
the ids, then read again in chunks of `CHUNK` as the run goes, so that memory holds a
chunk of items, not the data set (an item of 10 chunks takes ~10 KB as an `EvalItem`).
"""

from __future__ import annotations

import hashlib
import itertools
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from scorers import DatasetError
from scorers._internal import paused_gc

from .._data import EvalItem, item_stream, load_dataset, raise_problems
from .._file._header import DataSource
from ._shards import select_shard, shard_of

CHUNK = 4096
"""Items read and handed to the engine at once in a streamed run."""


class ItemSource:
    """The run's items (its shard's), in data order.

    Attributes:
        ids: Every item's id, in order.
        columns: Which of ``output`` / ``context`` some item carries.
    """

    def __init__(
        self,
        data: str | os.PathLike[str] | Iterable[Any],
        shard: tuple[int, int] | None,
        stream: bool,
    ):
        self._shard = shard
        self._held: list[EvalItem] | None = None
        self._path: Path | None = None
        self._data = data
        if stream and isinstance(data, (str, os.PathLike)):
            self._path = Path(data)
            self.ids, self.columns = self._scan()
        else:
            self._held = select_shard(load_dataset(data), shard)
            self.ids = [item.id for item in self._held]
            self.columns = _columns(self._held)

    def identity(self) -> DataSource:
        """The data set as a results file records it: a file's name and the hash of its
        bytes; for data given in memory, the hash of its items (this shard's)."""
        digest = hashlib.sha256()
        if isinstance(self._data, (str, os.PathLike)):
            path = Path(self._data)
            with path.open("rb") as handle:
                while block := handle.read(1 << 20):
                    digest.update(block)
            return DataSource(name=path.name, sha256=digest.hexdigest())
        for item in self._held or []:
            digest.update(item.model_dump_json().encode())
            digest.update(b"\n")
        return DataSource(name="", sha256=digest.hexdigest())

    @property
    def streamed(self) -> bool:
        """Whether the items are read again chunk by chunk (not held)."""
        return self._held is None

    def __len__(self) -> int:
        return len(self.ids)

    def chunks(self) -> Iterator[list[EvalItem]]:
        """The items in order: all at once when held, else `CHUNK` at a time."""
        if self._held is not None:
            yield self._held
            return
        assert self._path is not None
        rows = item_stream(self._path, checked=True)  # _scan checked them
        while (chunk := self._read(rows)) is not None:
            if chunk:
                yield chunk

    def _read(self, rows: Iterator[EvalItem | DatasetError]) -> list[EvalItem] | None:
        """The next `CHUNK` rows' items of this shard; None at the end."""
        with paused_gc():  # validation makes many objects and no cycles
            read = list(itertools.islice(rows, CHUNK))
        if not read:
            return None
        return [found for found in read if isinstance(found, EvalItem) and self._mine(found)]

    def _mine(self, item: EvalItem) -> bool:
        return self._shard is None or shard_of(item.id, self._shard[1]) == self._shard[0]

    def _scan(self) -> tuple[list[str], list[str]]:
        """Validate the whole file (every bad row named, as `load_dataset` does), keeping
        the ids and which columns appear."""
        assert self._path is not None
        ids: list[str] = []
        problems: list[str] = []
        output = context = False
        with paused_gc():
            for found in item_stream(self._path):
                if not isinstance(found, EvalItem):
                    problems.append(str(found))
                elif self._mine(found):
                    ids.append(found.id)
                    output = output or found.output is not None
                    context = context or found.context is not None
        raise_problems(problems)
        return ids, [name for name, seen in (("output", output), ("context", context)) if seen]


def _columns(items: list[EvalItem]) -> list[str]:
    return [
        name for name in ("output", "context") if any(getattr(i, name) is not None for i in items)
    ]


__all__ = ["CHUNK", "ItemSource"]
