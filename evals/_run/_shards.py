"""Shards of a data set for many processes or machines, and merging their results files."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scorers import ConfigError
from scorers._internal import write_atomically

from .._results import ItemResult, RunHeader


def parse_shard(shard: Any) -> tuple[int, int] | None:
    """``(index, count)`` from ``(i, n)`` or ``"i/n"``; None for None.

    Raises:
        ConfigError: Unless ``0 <= i < n`` are integers.
    """
    if shard is None:
        return None
    if isinstance(shard, str):
        index_text, sep, count_text = shard.partition("/")
        try:
            shard = (int(index_text), int(count_text)) if sep else None
        except ValueError:
            shard = None
        if shard is None:
            raise ConfigError("shard takes I/N with integers 0 <= I < N, e.g. 0/4")
    if (
        not isinstance(shard, (tuple, list))
        or len(shard) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in shard)
        or not 0 <= shard[0] < shard[1]
    ):
        raise ConfigError(f"shard must be (index, count) with 0 <= index < count; got {shard!r}")
    return int(shard[0]), int(shard[1])


def shard_of(item_id: str, count: int) -> int:
    """The shard an item id belongs to: its sha256, modulo ``count`` (stable across
    machines and Python versions, independent of the item's content and position)."""
    digest = hashlib.sha256(item_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count


def merge_results(out: str | os.PathLike[str], *paths: str | os.PathLike[str]) -> list[ItemResult]:
    """Merge results files (one per shard, say) into ``out``.

    An id in several files is kept once when its scorer results agree on every shared
    scorer's fingerprint (the last file's line wins, as resume's last line does); with a
    different fingerprint for the same scorer — two configurations — the merge is
    refused. The summary of the merged file (`read_results` then `summarize`) equals the
    summary of one run over the same items.

    Args:
        out: The merged results file to write; it must not exist yet.
        *paths: The results files to merge, at least one.

    Returns:
        The merged items, in the order first seen.

    Raises:
        ConfigError: For a missing or non-results input, an existing ``out``, or an id
            with conflicting fingerprints.
    """
    from .._file._jsonl import encode
    from .._results import read_results
    from .._results._run_view import ResultList

    if not paths:
        raise ConfigError("merge_results needs at least one results file to merge")
    target = Path(out)
    if target.exists() and target.stat().st_size:
        raise ConfigError(f"{target} already exists; merge into a new file")
    merged: dict[str, ItemResult] = {}
    source: dict[str, str] = {}
    headers: dict[str, RunHeader] = {}
    for path in paths:
        results = read_results(path)
        if results.header is not None:  # type: ignore[attr-defined]
            headers[str(path)] = results.header  # type: ignore[attr-defined]
        for result in results:
            item_id = result.item.id
            earlier = merged.get(item_id)
            if earlier is not None:
                _check_same_configuration(earlier, result, item_id, source[item_id], str(path))
            merged[item_id] = result
            source[item_id] = str(path)
    header = _merged_header(headers)
    lines = [header.line()] if header is not None else []
    lines += [encode(result)[0] for result in merged.values()]
    write_atomically(target, b"".join(lines))  # all at once: never half-merged
    kept = ResultList(merged.values())
    kept.header = header
    return kept


def _merged_header(headers: dict[str, RunHeader]) -> RunHeader | None:
    """One header for the merged file: every scorer once, refusing a scorer configured
    differently in two files (two runs, not shards of one)."""
    if not headers:
        return None
    merged = next(iter(headers.values())).model_copy(deep=True)
    seen = dict.fromkeys(merged.scorers, next(iter(headers)))
    for path, header in headers.items():
        for sid, definition in header.scorers.items():
            earlier = merged.scorers.setdefault(sid, definition)
            first = seen.setdefault(sid, path)
            if earlier.fingerprint != definition.fingerprint:
                raise ConfigError(
                    f"{first} and {path} were written with different configurations of scorer "
                    f"{sid!r} (fingerprints {earlier.fingerprint} and "
                    f"{definition.fingerprint}); merge runs of one configuration"
                )
    return merged


def _check_same_configuration(
    a: ItemResult, b: ItemResult, item_id: str, first: str, second: str
) -> None:
    for sid in set(a.fingerprints) & set(b.fingerprints):
        if a.fingerprints[sid] != b.fingerprints[sid]:
            raise ConfigError(
                f"item {item_id!r} is in {first} and {second} with different configurations "
                f"of scorer {sid!r} (fingerprints {a.fingerprints[sid]} and "
                f"{b.fingerprints[sid]}); merge runs of one configuration"
            )


def select_shard(items: Sequence[Any], shard: tuple[int, int] | None) -> list[Any]:
    """The items of ``shard`` (all of them for None)."""
    if shard is None:
        return list(items)
    index, count = shard
    return [item for item in items if shard_of(item.id, count) == index]
