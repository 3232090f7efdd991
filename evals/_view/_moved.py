"""The items that moved most between two runs: paired by id, each side's score, reason
and chunks, over one slice of the items when one is chosen."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._results import ItemResult
from .._results._slices import group_of
from ._params import short

MOVED_SHOWN = 20
"""Items a comparison page shows by default."""
SLICE_GROUPS = 50
"""A metadata key with more groups than this is not offered as a slice."""
CHUNKS_SHOWN = 10


def _side(item: ItemResult, scorer: str) -> dict[str, Any]:
    """One run's side of an item: the scorer's score, status and reason, the chunks."""
    found = item.scorer_results.get(scorer)
    chunks = (item.target_result.context if item.target_result else None) or item.item.context or []
    shown = []
    for chunk in chunks[:CHUNKS_SHOWN]:
        text = getattr(chunk, "text", chunk)
        shown.append({"id": getattr(chunk, "id", None), "text": short(text, 400)})
    return {
        "score": None if found is None else found.score,
        "status": "error"
        if item.error is not None
        else "missing"
        if found is None
        else found.status,
        "reason": "" if found is None else short(found.reason or found.error or "", 1_000),
        "chunks": shown,
        "more_chunks": max(len(chunks) - CHUNKS_SHOWN, 0),
    }


def slices_of(items: Iterable[ItemResult]) -> dict[str, list[str]]:
    """Each metadata key of ``items`` with its groups (`group_of`), when it has at most
    `SLICE_GROUPS`."""
    found: dict[str, set[str]] = {}
    for item in items:
        for key in item.item.metadata:
            found.setdefault(key, set())
    for item in items:
        for key, groups in found.items():
            if len(groups) <= SLICE_GROUPS:
                groups.add(group_of(item, key))
    return {k: sorted(g) for k, g in sorted(found.items()) if len(g) <= SLICE_GROUPS}


def moved_items(
    base: list[ItemResult],
    other: list[ItemResult],
    scorer: str,
    slice_key: str = "",
    group: str = "",
    count: int = MOVED_SHOWN,
) -> dict[str, Any]:
    """The ``count`` items of ``other`` whose ``scorer`` score moved most from ``base``
    (items paired by id; in ``slice_key``'s ``group`` of the baseline's metadata when
    given): first those scored on one side only (a failure is a move), then by the size
    of the change, largest first; ties by id."""
    theirs = {item.item.id: item for item in other}
    pairs = [
        (mine, theirs[mine.item.id])
        for mine in base
        if mine.item.id in theirs and (not slice_key or group_of(mine, slice_key) == group)
    ]
    rows: list[dict[str, Any]] = []
    for mine, their in pairs:
        a, b = _side(mine, scorer), _side(their, scorer)
        both = a["status"] == b["status"] == "scored"
        delta = b["score"] - a["score"] if both and None not in (a["score"], b["score"]) else None
        if delta == 0 or (delta is None and a["status"] == b["status"]):
            continue
        rows.append(
            {
                "id": mine.item.id,
                "input": short(mine.item.input, 400),
                "delta": delta,
                "base": a,
                "other": b,
            }
        )
    rows.sort(key=lambda r: (r["delta"] is not None, -abs(float(r["delta"] or 0)), str(r["id"])))
    return {"paired": len(pairs), "moved": len(rows), "items": rows[:count]}
