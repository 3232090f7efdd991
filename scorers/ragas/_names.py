"""Ragas' row field names, 0.1's and today's, and the scorekit fields they stand for: the
one reading of Ragas rows, used by `evaluate`'s samples and by `evals`' data loader."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from .._errors import DatasetError

ROW_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("question", "user_input", "input"),
    ("answer", "response", "output"),
    ("ground_truth", "reference", "ground_truth"),
    ("contexts", "retrieved_contexts", "context"),
)
"""``(Ragas 0.1 name, Ragas name, scorekit name)`` of each field they share."""

_TO = {
    "ragas": {old: new for old, new, _ in ROW_FIELDS},
    "scorekit": {
        name: ours for old, new, ours in ROW_FIELDS for name in (old, new) if name != ours
    },
}


def normalize_row(
    row: Mapping[str, Any], to: Literal["scorekit", "ragas"] = "scorekit", where: str = "row"
) -> tuple[dict[str, Any], list[str]]:
    """``row`` with Ragas' field names as scorekit's (``to="scorekit"``) or as today's
    Ragas names (``to="ragas"``); Ragas 0.1's ``ground_truths`` (a list of reference
    answers) joined one per line; other keys as they are.

    Returns:
        The row, and notes on what was changed beyond names (answers joined).

    Raises:
        DatasetError: When two keys give one field, or ``ground_truths`` is not a
            non-empty list of strings.
    """
    names = _TO[to]
    reference = "ground_truth" if to == "scorekit" else "reference"
    found: dict[str, Any] = {}
    origin: dict[str, str] = {}
    notes: list[str] = []
    for key, value in row.items():
        key = str(key)
        name = names.get(key, key)
        if key == "ground_truths":
            name = reference
            value, note = _joined(where, value)
            notes.extend([note] if note else [])
        if name in found:
            raise DatasetError(
                f"{where}: fields '{origin[name]}' and '{key}' both give '{name}'; keep one"
            )
        found[name], origin[name] = value, key
    return found, notes


def _joined(where: str, value: Any) -> tuple[str, str | None]:
    if isinstance(value, str):
        return value, None
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise DatasetError(f"{where}: field 'ground_truths' must be a non-empty list of strings")
    if len(value) == 1:
        return value[0], None
    return "\n".join(value), f"ground_truths: {len(value)} answers joined, one per line"


__all__ = ["ROW_FIELDS", "normalize_row"]
