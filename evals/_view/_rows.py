"""A run's items as light rows, so that the viewer sorts, searches and filters a page of
them: read once per version of the file, then every question is answered from memory."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .._file._items import ItemResult
from .._stats._slices import group_label

SORTS = ("file", "id", "status")
"""The orders besides ``score:<scorer id>``."""
STATUSES = ("scored", "skipped", "error")


@dataclass(frozen=True)
class Row:
    """What of an item the choices read.

    Attributes:
        index: Its position in the file.
        id: Its id.
        text: Its id and question, lowercased (what a search looks in).
        statuses: Each scorer's status (``"error"`` for every scorer when the item failed).
        scores: Each scored scorer's score.
        metadata: The item's metadata, each value as text (JSON for a list or object).
        groups: Its slice under each metadata key it has (`group_label`'s label).
    """

    index: int
    id: str
    text: str
    statuses: dict[str, str]
    scores: dict[str, float]
    metadata: dict[str, str]
    groups: dict[str, str]

    @property
    def worst(self) -> int:
        """0 when every scorer scored, 1 when one skipped, 2 when one failed."""
        found = set(self.statuses.values())
        return 2 if "error" in found else 1 if "skipped" in found else 0


def light_line(item: ItemResult) -> dict[str, Any]:
    """What `light_rows` reads of a validated item, as a results line holds it (the
    index keeps these when it first reads a run)."""
    results = {
        sid: {"status": r.status, "score": r.score} for sid, r in item.scorer_results.items()
    }
    question, metadata = item.item.input, item.item.metadata
    return {
        "item": {"id": item.item.id, "input": question, "metadata": metadata},
        "scorer_results": results,
        "error": None if item.error is None else item.error.message,
    }


def light_rows(lines: Iterable[dict[str, Any]]) -> list[Row]:
    """One `Row` per item, in file order, from its results line as JSON (full or compact,
    whose results leave out `ScoreResult`'s defaults)."""
    rows = []
    for index, data in enumerate(lines):
        item = data.get("item") or {}
        results = data.get("scorer_results") or {}
        question = item.get("input")
        question = question if isinstance(question, str) else _text(question)
        # a compact line leaves out a result's defaults: status "scored", score 0.0
        statuses: dict[str, str] = {sid: r.get("status", "scored") for sid, r in results.items()}
        if data.get("error") is not None:
            statuses = dict.fromkeys(statuses or ["(item)"], "error")
        scores = {
            sid: float(r.get("score", 0.0))
            for sid, r in results.items()
            if statuses[sid] == "scored" and r.get("score", 0.0) is not None
        }
        key = str(item.get("id", ""))
        given = item.get("metadata") or {}
        metadata = {str(k): _text(v) for k, v in given.items()}
        groups = {str(k): group_label(v) for k, v in given.items()}
        text = f"{key}\n{question}".lower()
        rows.append(Row(index, key, text, statuses, scores, metadata, groups))
    return rows


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


FACET_VALUES = 50
"""The most values of one metadata key the filter offers to pick from (past it, typed)."""


def facets(rows: list[Row]) -> dict[str, list[str] | None]:
    """Each metadata key of the run's items with its values, sorted (None for a key with
    more than `FACET_VALUES`: its value is typed, not picked)."""
    found: dict[str, set[str] | None] = {}
    for row in rows:
        for key, value in row.metadata.items():
            values = found.setdefault(key, set())
            if values is not None:
                values.add(value)
                if len(values) > FACET_VALUES:
                    found[key] = None
    return {k: None if v is None else sorted(v) for k, v in sorted(found.items())}


def chosen(rows: list[Row], params: Mapping[str, str]) -> list[int]:
    """The indices of the rows a page shows, in its order.

    ``params``: ``q`` (text in the id or question, any case), ``status`` (some scorer has
    it), ``scorer`` with ``min`` / ``max`` (its score in the range; unscored rows left out),
    ``meta_key`` with ``meta_value`` (the item's metadata holds that value under that key,
    as `Row.metadata` writes it; without a value, the key is there at all), ``sort``
    (``file``, ``id``, ``status``: failed first, or ``score:<scorer id>``: unscored last)
    and ``order`` (``desc`` reverses).

    Raises:
        ValueError: For an unknown sort, status or scorer, or a bound that is not a number.
    """
    known = {sid for row in rows for sid in row.statuses}
    sort = params.get("sort", "file")
    for sid in (
        params.get("scorer", ""),
        sort.removeprefix("score:") if sort.startswith("score:") else "",
    ):
        if sid and sid not in known:
            raise ValueError(
                f"this run has no scorer {sid!r}; its scorers: {', '.join(sorted(known))}"
            )
    found = rows
    query = params.get("q", "").strip().lower()
    if query:
        found = [r for r in found if query in r.text]
    status = params.get("status", "")
    if status:
        if status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}; got {status!r}")
        found = [r for r in found if status in r.statuses.values()]
    key = params.get("meta_key", "")
    if key:
        value = params.get("meta_value")
        found = [r for r in found if key in r.metadata and value in (None, r.metadata[key])]
    scorer = params.get("scorer", "")
    if scorer:
        low, high = _bound(params, "min", -math.inf), _bound(params, "max", math.inf)
        found = [r for r in found if low <= r.scores.get(scorer, math.nan) <= high]
    return [r.index for r in _sorted(found, sort, params.get("order"))]


def _bound(params: Mapping[str, str], name: str, default: float) -> float:
    text = params.get(name, "").strip()
    if not text:
        return default
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"{name} must be a number; got {text!r}") from None


def _sorted(rows: list[Row], sort: str, order: str | None) -> list[Row]:
    desc = order == "desc"
    if sort == "file":
        return rows[::-1] if desc else rows
    if sort == "id":
        return sorted(rows, key=lambda r: r.id, reverse=desc)
    if sort == "status":
        return sorted(rows, key=lambda r: -r.worst, reverse=desc)
    if sort.startswith("score:"):
        sid = sort.removeprefix("score:")
        scored = [r for r in rows if sid in r.scores]
        unscored = [r for r in rows if sid not in r.scores]
        return sorted(scored, key=lambda r: r.scores[sid], reverse=desc) + unscored
    raise ValueError(f"sort must be one of {', '.join(SORTS)} or score:<scorer id>; got {sort!r}")


__all__ = ["Row", "chosen", "facets", "light_rows"]
