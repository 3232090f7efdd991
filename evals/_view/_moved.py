"""The items that moved most between two runs: paired by id, each side's score, reason
and chunks, over one slice of the items when one is chosen.

Which items moved is found from both runs' light rows (`_rows.Row`, read once per file
version); only the items shown are read in full."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._results import ItemResult
from .._stats._slices import MISSING
from ._params import short
from ._rows import Row

MOVED_SHOWN = 20
"""Items a comparison page shows by default."""
SLICE_GROUPS = 50
"""A metadata key with more groups than this is not offered as a slice."""
CHUNKS_SHOWN = 10


def side(item: ItemResult, scorer: str) -> dict[str, Any]:
    """One run's side of an item: the scorer's score, status and reason, the chunks."""
    found = item.scorer_results.get(scorer)
    given = item.target_result.context if item.target_result else None
    chunks = given or item.item.context or []
    shown = []
    for chunk in chunks[:CHUNKS_SHOWN]:
        text = getattr(chunk, "text", chunk)
        shown.append({"id": getattr(chunk, "id", None), "text": short(text, 400)})
    status = "missing" if found is None else found.status
    return {
        "score": None if found is None else found.score,
        "status": "error" if item.error is not None else status,
        "reason": "" if found is None else short(found.reason or found.error or "", 1_000),
        "chunks": shown,
        "more_chunks": max(len(chunks) - CHUNKS_SHOWN, 0),
    }


def slices_of(rows: list[Row]) -> dict[str, list[str]]:
    """Each metadata key of the rows with its groups (`group_label`'s; `MISSING` for
    rows without it), when it has at most `SLICE_GROUPS`."""
    found: dict[str, set[str]] = {}
    for row in rows:
        for key, group in row.groups.items():
            groups = found.setdefault(key, set())
            if len(groups) <= SLICE_GROUPS:
                groups.add(group)
    for key, groups in found.items():
        if any(key not in row.groups for row in rows):
            groups.add(MISSING)
    return {k: sorted(g) for k, g in sorted(found.items()) if len(g) <= SLICE_GROUPS}


def _status(row: Row, scorer: str) -> str:
    return row.statuses.get(scorer, "missing")


def moved_items(
    base: list[Row],
    other: list[Row],
    scorer: str,
    load: Callable[[int, int], ItemResult],
    slice_key: str = "",
    group: str = "",
    count: int = MOVED_SHOWN,
) -> dict[str, Any]:
    """The ``count`` items of ``other`` whose ``scorer`` score moved most from ``base``
    (items paired by id; in ``slice_key``'s ``group`` of the baseline's metadata when
    given): first those scored on one side only (a failure is a move), then by the size
    of the change, largest first; ties by id. ``load(run, index)`` reads an item in full
    (run 0 the baseline, 1 the candidate)."""
    theirs = {row.id: row for row in other}
    pairs = [
        (mine, theirs[mine.id])
        for mine in base
        if mine.id in theirs and (not slice_key or mine.groups.get(slice_key, MISSING) == group)
    ]
    moved: list[tuple[Row, Row, float | None]] = []
    for mine, their in pairs:
        a, b = mine.scores.get(scorer), their.scores.get(scorer)
        delta = None if a is None or b is None else b - a
        if delta == 0 or (delta is None and _status(mine, scorer) == _status(their, scorer)):
            continue
        moved.append((mine, their, delta))
    moved.sort(key=lambda m: (m[2] is not None, -abs(m[2] or 0.0), m[0].id))
    shown = []
    for mine, their, delta in moved[:count]:
        full = load(0, mine.index)
        shown.append(
            {
                "id": mine.id,
                "input": short(full.item.input, 400),
                "delta": delta,
                "base": side(full, scorer),
                "other": side(load(1, their.index), scorer),
            }
        )
    return {"paired": len(pairs), "moved": len(moved), "items": shown}
