"""Model-free scorers' details as a results line holds them, and back.

String-similarity scorers keep a chunk × reference matrix, ID scorers the ranked and
relevant ids. Written as they are, four such results take ~3 KB a line (17-digit floats,
ids the item already lists, one matrix twice). A line holds instead:

- the matrix rounded to `DIGITS` decimals (what a report shows), once per line: a second
  scorer with the same matrix refers to the first (``{"$same_in": scorer_id}``);
- ``best_per_reference`` / ``best_per_chunk`` as ``"$max"`` (recomputed from the matrix);
  ``matched`` stays (it was decided on the unrounded values);
- ``retrieved_ids`` as ``"$context"`` and ``relevant_ids`` as ``"$reference"`` when they
  are the item's own, binary ``grades`` as ``"$binary"``, and the same ids of a second
  scorer as ``{"$same_in": scorer_id}``.

Reading restores each of them (the matrix and the best values rounded).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from pydantic_core import PydanticSerializationError, to_json

from scorers import ScoreResult
from scorers._internal import Outcome

from .._item import EvalItem
from ._items import ItemResult

DIGITS = 4
"""Decimals a similarity keeps in a results line."""


def shrink_free(result: ItemResult) -> dict[str, ScoreResult]:
    """``result``'s scorer results with their model-free details shrunk (copies where
    changed; the others as they are). For lines that also hold model calls; a line of
    model-free results only is `model_free_line`."""
    out: dict[str, ScoreResult] = {}
    seen: dict[Any, Any] = {}
    for sid, score in result.scorer_results.items():
        details = _shrunk_details(score.details, sid, seen, result.item, result.target_result)
        out[sid] = (
            score if details is score.details else score.model_copy(update={"details": details})
        )
    return out


def _shrunk_details(
    details: dict[str, Any], sid: str, seen: dict[Any, Any], item: EvalItem, target: Any
) -> dict[str, Any]:
    """``details`` with similarities and ids shrunk (the same dict when neither is
    there); ``seen``: the matrices written so far by ``id()``, the ids under ``"ids"``."""
    sims, ids = details.get("similarities"), details.get("ids")
    if isinstance(sims, dict) and "similarities" in sims and "threshold" in sims:
        details = {**details, "similarities": _shrunk_similarities(sims, sid, seen)}
    if isinstance(ids, dict) and "retrieved_ids" in ids:
        details = {**details, "ids": _shrunk_ids(ids, sid, seen, item, target)}
    return details


def _shrunk_similarities(sims: dict[str, Any], sid: str, seen: dict[Any, Any]) -> dict[str, Any]:
    shrunk = dict(sims)
    matrix = sims["similarities"]
    first = seen.get(id(matrix))
    if first is not None:
        shrunk["similarities"] = {"$same_in": first}
    else:
        seen[id(matrix)] = sid
        shrunk["similarities"] = np.round(np.asarray(matrix, dtype=float), DIGITS).tolist()
    if "best_per_reference" in shrunk:
        shrunk["best_per_reference"] = "$max"
    if "best_per_chunk" in shrunk:
        shrunk["best_per_chunk"] = "$max"
    if hasattr(shrunk.get("matched"), "tolist"):
        shrunk["matched"] = shrunk["matched"].tolist()
    return shrunk


def _shrunk_ids(
    ids: dict[str, Any], sid: str, seen: dict[Any, Any], item: EvalItem, target: Any
) -> dict[str, Any]:
    written: list[tuple[dict[str, Any], str]] = seen.setdefault("ids", [])
    for earlier, first in written:  # a scorer's ids equal to an earlier scorer's
        if ids is earlier or ids == earlier:
            return {"$same_in": first}
    written.append((ids, sid))
    retrieved, relevant, grades = ids["retrieved_ids"], ids.get("relevant_ids"), ids.get("grades")
    shrunk = dict(ids)
    if retrieved == _context_ids(item, target):
        shrunk["retrieved_ids"] = "$context"
    if relevant is not None and relevant == item.reference_context_ids:
        shrunk["relevant_ids"] = "$reference"
    if relevant is not None and grades == dict.fromkeys(relevant, 1.0):
        shrunk["grades"] = "$binary"
    return shrunk


_SCORE_DEFAULTS: dict[str, Any] = {
    name: field.get_default(call_default_factory=True)
    for name, field in ScoreResult.model_fields.items()
}


def model_free_line(result: ItemResult, fingerprints: dict[str, str], scales: Any) -> bytes | None:
    """The compact line body (after the prefix's ``{``) of an item that no model and no
    target worked on, built without copying models: fields at their defaults, each
    result's id (its key), and ``fingerprints`` / ``scales`` equal to the given ones (the
    header's) left out. None when a value is not plain JSON (the caller then takes the
    general path)."""
    seen: dict[Any, Any] = {}
    results: dict[str, dict[str, Any]] = {}
    defaults = _SCORE_DEFAULTS
    item, target = result.item, result.target_result
    for sid, score in result.scorer_results.items():
        fields = {name: v for name, v in vars(score).items() if v != defaults[name]}
        results[sid] = _line_fields(fields, sid, seen, item, target)
    tail: dict[str, Any] = {"scorer_results": results}
    if result.error is not None:
        tail["error"] = result.error.model_dump(mode="json", exclude_defaults=True)
    if result.duration_s:
        tail["duration_s"] = round(result.duration_s, 6)
    if result.fingerprints and result.fingerprints != fingerprints:
        tail["fingerprints"] = result.fingerprints
    if result.scales is not None and result.scales != scales:
        tail["scales"] = result.scales
    return _line_body(item, tail)


def outcome_line(
    item: EvalItem,
    outcomes: Mapping[str, Outcome],
    seconds: Mapping[str, float],
    scorer_ids: Mapping[str, str],
    run_tail: Mapping[str, Any],
) -> bytes | None:
    """`model_free_line` of an item whose scorers' fast paths gave ``outcomes`` (by
    key), each taking ``seconds[key]``, without building its results: the same bytes as
    the line of the `ItemResult` they make. ``run_tail``: the run's fingerprints and
    scales when the header does not hold them (see `ResultsFile.write_outcomes`)."""
    seen: dict[Any, Any] = {}
    results: dict[str, dict[str, Any]] = {}
    duration = 0.0
    once: set[int] = set()
    again: dict[int, dict[str, Any]] = {}  # details plug-ins share, as a later scorer's
    for sid, (score, reason, details) in outcomes.items():
        each = seconds[sid]
        duration += each
        fields: dict[str, Any] = {}
        if scorer_ids[sid] != sid:
            fields["scorer_id"] = scorer_ids[sid]
        if score != 0.0:
            fields["score"] = score
        if reason:
            fields["reason"] = reason
        if details:
            key = id(details)
            shrunk = again.get(key)
            if shrunk is None:
                shrunk = _shrunk_details(details, sid, seen, item, None)
                if key in once:  # a third scorer with them says what the second said
                    again[key] = shrunk
                once.add(key)
            fields["details"] = shrunk
        if each:
            fields["duration_s"] = round(each, 6)
        results[sid] = fields
    tail: dict[str, Any] = {"scorer_results": results}
    if duration:
        tail["duration_s"] = round(duration, 6)
    tail.update(run_tail)
    return _line_body(item, tail)


def _line_fields(
    fields: dict[str, Any], sid: str, seen: dict[Any, Any], item: EvalItem, target: Any
) -> dict[str, Any]:
    if fields.get("scorer_id") == sid:
        del fields["scorer_id"]
    if "duration_s" in fields:
        fields["duration_s"] = round(fields["duration_s"], 6)
    if "details" in fields:
        fields["details"] = _shrunk_details(fields["details"], sid, seen, item, target)
    return fields


def _line_body(item: EvalItem, tail: dict[str, Any]) -> bytes | None:
    try:
        text = to_json(tail, fallback=_plain, inf_nan_mode="strings")
    except (TypeError, ValueError, PydanticSerializationError):
        return None
    if b'"NaN"' in text or b'"Infinity"' in text or b'"-Infinity"' in text:
        return None  # a NaN in the details: the general path writes it as it can
    head = item.model_dump_json(exclude_defaults=True).encode("utf-8")
    return b'"item":' + head + b"," + text[1:]


def _plain(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(type(value).__name__)


def _context_ids(item: EvalItem, target: Any) -> list[str] | None:
    """The ids of the chunks the scorers saw, deduplicated in rank order."""
    chunks = target.context if target is not None else item.context
    if not chunks:
        return None
    return list(dict.fromkeys(getattr(c, "id", None) for c in chunks))  # type: ignore[misc]


def grow_free(result: ItemResult) -> None:
    """Undo `shrink_free`, in place."""
    results = result.scorer_results
    for score in results.values():
        sims = score.details.get("similarities")
        if isinstance(sims, dict) and isinstance(sims.get("similarities"), dict):
            owner = results.get(sims["similarities"].get("$same_in"))
            if owner is not None:
                sims["similarities"] = owner.details["similarities"]["similarities"]
        if isinstance(sims, dict):
            for per, axis in (("reference", 0), ("chunk", 1)):
                if sims.get(f"best_per_{per}") == "$max":
                    matrix = np.asarray(sims["similarities"], dtype=float)
                    sims[f"best_per_{per}"] = matrix.max(axis=axis).tolist() if matrix.size else []
        ids = score.details.get("ids")
        if isinstance(ids, dict) and "$same_in" in ids:
            owner = results.get(ids["$same_in"])
            if owner is not None:
                score.details["ids"] = ids = dict(owner.details["ids"])
        if isinstance(ids, dict):
            if ids.get("retrieved_ids") == "$context":
                ids["retrieved_ids"] = _context_ids(result.item, result.target_result) or []
            if ids.get("relevant_ids") == "$reference":
                ids["relevant_ids"] = list(result.item.reference_context_ids or [])
            if ids.get("grades") == "$binary":
                ids["grades"] = dict.fromkeys(ids.get("relevant_ids") or [], 1.0)


__all__ = ["DIGITS", "grow_free", "model_free_line", "outcome_line", "shrink_free"]
