"""Labelled data sets: JSONL / JSON / CSV files or in-memory rows → `EvalItem`s."""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from scorers import DatasetError
from scorers._runtime import ContextList, ReferenceIds, ReferenceTexts

_LIST_COLUMNS = ("context", "reference_contexts", "reference_context_ids", "metadata")


class EvalItem(BaseModel):
    """One labelled item.

    Attributes:
        id: Unique id; defaults to the row number (``"1"``, ``"2"``, ...).
        input: What the target receives (a question, or a message history).
        ground_truth: Reference answer (``groundTruth`` accepted).
        reference_contexts: Gold passages as text.
        reference_context_ids: Gold passage ids: a list, or a dict id -> grade.
        output: Precomputed response, used when there is no target.
        context: Precomputed retrieved chunks, used when the target does not return any.
        metadata: Anything else; carried through to results.
    """

    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    id: str = ""
    input: Any
    ground_truth: str | None = Field(default=None, alias="groundTruth")
    reference_contexts: ReferenceTexts = None
    reference_context_ids: ReferenceIds = None
    output: Any = None
    context: ContextList = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_string(cls, value: Any) -> Any:
        return "" if value is None else str(value)


def _row_error(where: str, exc: ValidationError) -> DatasetError:
    problems = []
    for err in exc.errors()[:5]:
        field = ".".join(str(p) for p in err["loc"]) or "row"
        if err["type"] == "missing":
            problems.append(f"field '{field}' is required")
        elif err["type"] == "extra_forbidden":
            problems.append(
                f"unknown field '{field}' (put extra data under 'metadata'; known fields: "
                f"{', '.join(EvalItem.model_fields)})"
            )
        else:
            problems.append(f"field '{field}': {err['msg']}")
    return DatasetError(f"{where}: " + "; ".join(problems))


def _parse_cell(column: str, value: str) -> Any:
    if value == "":
        return None
    if column in _LIST_COLUMNS or value[:1] in "[{":
        try:
            return json.loads(value)
        except ValueError:
            if column in _LIST_COLUMNS:
                raise
    return value


def _rows_from_path(path: Path) -> Iterable[tuple[str, Any]]:
    suffix = path.suffix.lower()
    if not path.exists():
        raise DatasetError(f"data file {path} does not exist")
    if suffix == ".jsonl":
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    yield f"{path.name} line {number}", json.loads(line)
                except ValueError as exc:
                    raise DatasetError(f"{path.name} line {number}: invalid JSON: {exc}") from None
    elif suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as exc:
            raise DatasetError(f"{path.name}: invalid JSON: {exc}") from None
        if isinstance(data, Mapping) and isinstance(data.get("items"), list):
            data = data["items"]
        if not isinstance(data, list):
            raise DatasetError(
                f"{path.name}: expected a JSON array of items (or {{'items': [...]}})"
            )
        for number, row in enumerate(data, start=1):
            yield f"{path.name} item {number}", row
    elif suffix == ".csv":
        with path.open(encoding="utf-8", newline="") as handle:
            for number, row in enumerate(csv.DictReader(handle), start=2):
                parsed: dict[str, Any] = {}
                for column, value in row.items():
                    if column is None:
                        raise DatasetError(f"{path.name} line {number}: more cells than columns")
                    if not value:
                        continue  # an empty cell is a missing field
                    try:
                        parsed[column] = _parse_cell(column, value or "")
                    except ValueError as exc:
                        raise DatasetError(
                            f"{path.name} line {number}: field '{column}' is not valid JSON: {exc}"
                        ) from None
                yield f"{path.name} line {number}", parsed
    else:
        raise DatasetError(
            f"{path}: unsupported data file type {suffix!r}; use .jsonl, .json or .csv"
        )


def load_dataset(data: str | os.PathLike[str] | Iterable[Any]) -> list[EvalItem]:
    """Read and validate a data set up front.

    Args:
        data: A path to a ``.jsonl``, ``.json`` (array) or ``.csv`` file, or an iterable
            of dicts / `EvalItem`s.

    Returns:
        The items, with ids defaulting to their 1-based row number.

    Raises:
        DatasetError: Naming the row and field of the first problem.
    """
    if isinstance(data, (str, os.PathLike)):
        rows: Iterable[tuple[str, Any]] = _rows_from_path(Path(data))
    elif isinstance(data, Mapping):
        raise DatasetError("data must be a path or a list of items, not a single dict")
    else:
        rows = ((f"item {i}", row) for i, row in enumerate(data, start=1))
    items: list[EvalItem] = []
    seen: dict[str, str] = {}
    for number, (where, row) in enumerate(rows, start=1):
        if isinstance(row, EvalItem):
            item = row
        elif isinstance(row, Mapping):
            try:
                item = EvalItem.model_validate(dict(row))
            except ValidationError as exc:
                raise _row_error(where, exc) from None
        else:
            raise DatasetError(f"{where}: expected an object, got {type(row).__name__}")
        if not item.id:
            item = item.model_copy(update={"id": str(number)})
        if item.id in seen:
            raise DatasetError(f"{where}: duplicate id {item.id!r} (first seen at {seen[item.id]})")
        seen[item.id] = where
        items.append(item)
    return items
