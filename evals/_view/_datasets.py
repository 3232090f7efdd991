"""A synthesized set under review: its rows, and the rows people accepted (with edits)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scorers import DatasetError

if TYPE_CHECKING:
    from .._labels import RowReview

EDITABLE = ("input", "ground_truth", "reference_context_ids")
"""What a person may change in a row: the question, the answer and the gold ids."""


def data_set_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON-lines data set, each with an ``id`` (the row number when it has
    none, as `load_dataset` numbers them)."""
    rows = []
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                row = json.loads(raw)
            except ValueError as exc:
                raise DatasetError(f"{path.name} line {number}: invalid JSON: {exc}") from None
            if not isinstance(row, dict):
                raise DatasetError(f"{path.name} line {number}: a row is a JSON object")
            row.setdefault("id", str(number))
            rows.append(row)
    return rows


def accepted_rows(
    rows: list[dict[str, Any]], reviews: dict[str, RowReview]
) -> list[dict[str, Any]]:
    """The accepted rows in the set's order, each with the edits made to its editable
    fields (`EDITABLE`); rows not reviewed, or rejected, are left out."""
    kept = []
    for row in rows:
        review = reviews.get(str(row["id"]))
        if review is None or review.decision != "accept":
            continue
        edited = dict(row)
        for name in EDITABLE:
            if name in review.row:
                edited[name] = review.row[name]
        kept.append(edited)
    return kept
