"""Labelled data sets: JSONL / JSON / CSV files or in-memory rows → `EvalItem`s."""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from scorers import DatasetError
from scorers._internal import paused_gc, warn_user
from scorers.ragas import ROW_FIELDS, normalize_row

from ._files import Columns, format_of, too_deep
from ._item import EvalItem
from ._storable import check_depth, check_row, storable

__all__ = ["EvalItem", "UnknownColumnsWarning", "load_dataset", "probable_field"]


def _row_error(where: str, exc: ValidationError, row: Mapping[str, Any]) -> DatasetError:
    missing: list[str] = []
    unknown: list[str] = []
    problems: list[str] = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"]) or "row"
        if err["type"] == "missing":
            missing.append(field)
        elif err["type"] == "extra_forbidden":
            unknown.append(field)
        elif len(problems) < 5:
            problems.append(f"field '{field}': {err['msg'].removeprefix('Value error, ')}")
    meant = {column: probable_field(column) for column in unknown}
    metadata = row.get("metadata")
    kept = [str(k) for k in metadata] if isinstance(metadata, Mapping) else []
    for field in missing:  # a column that went to metadata (CSV) or is unknown may be it
        guess = [c for c in [*unknown, *kept] if (meant.get(c) or probable_field(c)) == field]
        problems.append(
            f"field '{field}' is required"
            + (f" (is {_quoted(guess)} it? rename it to '{field}')" if guess else "")
        )
    if unknown:
        named = ", ".join(
            f"'{c}'" + (f" (did you mean '{f}'?)" if f and f not in missing else "")
            for c, f in meant.items()
        )
        problems.append(
            f"unknown field{'s' if len(unknown) > 1 else ''} {named} (put extra data under "
            "'metadata')"
        )
    return DatasetError(f"{where}: " + "; ".join(problems))


def _quoted(columns: list[str]) -> str:
    return " or ".join(f"'{c}'" for c in columns)


LIKELY_FIELDS = {
    **dict.fromkeys(
        ("gold_ids", "gold", "gold_doc_ids", "relevant_ids", "relevant_doc_ids", "positive_ids",
         "positives", "qrels", "expected_ids", "reference_ids", "corpus_id", "corpus-id",
         "ground_truth_ids", "gold_passage_ids"),
        "reference_context_ids",
    ),
    **dict.fromkeys(
        ("retrieved_ids", "retrieved_doc_ids", "doc_ids", "hit_ids", "result_ids",
         "ranked_ids", "ranking", "retrieved_documents_ids", "context_ids"),
        "retrieved_context_ids",
    ),
    **dict.fromkeys(("query", "prompt", "user_query", "query_text"), "input"),
    **dict.fromkeys(("query_id", "query-id", "qid", "question_id"), "id"),
    **dict.fromkeys(
        ("actual_output", "prediction", "generated_answer", "generation", "model_answer"),
        "output",
    ),
    **dict.fromkeys(
        ("expected_output", "gold_answer", "reference_answer", "expected_answer", "target"),
        "ground_truth",
    ),
    **dict.fromkeys(
        ("retrieval_context", "documents", "passages", "chunks", "retrieved_documents",
         "retrieved_passages", "retrieved_chunks", "hits"),
        "context",
    ),
    **dict.fromkeys(
        ("expected_context", "gold_contexts", "gold_passages", "reference_context",
         "gold_documents", "relevant_contexts"),
        "reference_contexts",
    ),
}  # fmt: skip
"""Columns that Ragas, DeepEval, BEIR and home-made files use, and the field each means."""


def probable_field(column: str) -> str | None:
    """The field a column that is not one of scorekit's probably means (`LIKELY_FIELDS`,
    else a close spelling of a known field), or None."""
    key = column.strip().lower().replace(" ", "_")
    if key in LIKELY_FIELDS:
        return LIKELY_FIELDS[key]
    spellings = _spellings()
    close = difflib.get_close_matches(key, list(spellings), 1, 0.8)
    return spellings[close[0]] if close else None


def _spellings() -> dict[str, str]:
    """Every name a field goes by (its own, Ragas', the usual others) → the field."""
    found = {name: name for name in [*EvalItem.model_fields, "retrieved_context_ids"]}
    for *aliases, field in ROW_FIELDS:
        found.update(dict.fromkeys(aliases, field))
    return {**LIKELY_FIELDS, **found}


class UnknownColumnsWarning(UserWarning):
    """A data file has columns that are not scorekit fields but look like one (kept in
    ``metadata``, so not scored)."""


def _warn_unknown_columns(path: Path, header: list[str]) -> None:
    """Name, once per file, the columns of a flat file that go to ``metadata``: those
    that probably meant a field with the field."""
    known = _known_columns()
    extra = [c for c in header if c not in known and c != "metadata"]
    meant = {c: probable_field(c) for c in extra}
    if any(meant.values()):
        named = ", ".join(
            f"'{c}'" + (f" (did you mean '{f}'?)" if f else "") for c, f in meant.items()
        )
        warn_user(
            f"{path.name}: column{'s' if len(extra) > 1 else ''} {named} "
            f"{'are not scorekit fields' if len(extra) > 1 else 'is not a scorekit field'}: kept in each item's "
            "metadata and not scored; rename a column to use it",
            UnknownColumnsWarning,
        )


_RAGAS_EXTRAS = (
    "retrieved_context_ids",
    "multi_responses",
    "rubrics",
    "reference_tool_calls",
    "persona_name",
    "query_style",
    "query_length",
    "synthesizer_name",
)
"""Ragas fields with no `EvalItem` counterpart: kept in ``metadata``."""

_LIST_COLUMNS = frozenset(
    {
        "context",
        "reference_contexts",
        "reference_context_ids",
        "retrieved_context_ids",
        "retrieved_contexts",
        "contexts",
        "claims",
        "ground_truths",
    }
)


_FIELDS = frozenset(EvalItem.model_fields)


def _known_columns() -> frozenset[str]:
    names = set(EvalItem.model_fields) | {"groundTruth", "ground_truths"}
    ragas = {name for shared in ROW_FIELDS for name in shared}
    return frozenset(names | ragas | set(_RAGAS_EXTRAS))


def _normalised(where: str, row: Mapping[str, Any]) -> dict[str, Any]:
    """``row`` with Ragas names mapped to ours (``row`` itself when it has none; the
    names are `scorers.ragas.normalize_row`'s, as the Ragas facade reads them)."""
    if type(row) is dict and _FIELDS.issuperset(row):
        return row  # validation reads it, never changes it
    extras = {key: row[key] for key in _RAGAS_EXTRAS if key in row}
    found, notes = normalize_row(
        {k: v for k, v in row.items() if k not in extras}, "scorekit", where
    )
    if notes:
        extras["ground_truths_note"] = notes[0]
    ids = extras.get("retrieved_context_ids")
    if ids is not None and isinstance(found.get("context"), list):
        texts = found["context"]
        if len(ids) != len(texts):
            raise DatasetError(
                f"{where}: retrieved_context_ids has {len(ids)} ids for {len(texts)} "
                "retrieved_contexts; they must pair up"
            )
        found["context"] = [
            {"id": i, "text": t} if isinstance(t, str) else t
            for i, t in zip(ids, texts, strict=True)
        ]
        extras.pop("retrieved_context_ids")
    elif ids is not None and found.get("context") is None:
        found["retrieved_context_ids"] = extras.pop("retrieved_context_ids")  # ids only
    if extras:
        metadata = found.get("metadata") or {}
        if not isinstance(metadata, Mapping):
            raise DatasetError(f"{where}: field 'metadata' must be an object")
        found["metadata"] = {**extras, **metadata}
    return found


def _table_rows(data: Any) -> Iterable[dict[str, Any]]:
    """The rows of a pandas DataFrame, pandas' missing values (NaN, None) left out."""
    for record in data.to_dict(orient="records"):
        row = {}
        for key, value in record.items():
            if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
                value = value.tolist()  # numpy arrays and scalars
            if value is None or (isinstance(value, float) and math.isnan(value)):
                continue
            row[str(key)] = value
        yield row


def _rows_from_path(path: Path) -> Iterable[tuple[str, Any]]:
    found = format_of(path, "data file")
    if found.columns is not None:
        _warn_unknown_columns(path, found.columns(path))
    return found.read(path, Columns(_LIST_COLUMNS, _known_columns()))


def load_dataset(data: str | os.PathLike[str] | Iterable[Any]) -> list[EvalItem]:
    """Read and validate a data set up front.

    Args:
        data: A path to a ``.jsonl``, ``.json`` (array) or ``.csv`` file (UTF-8, a BOM
            allowed), or any iterable of mappings / `EvalItem`s: a list of dicts, a
            Hugging Face ``datasets.Dataset``, a pandas ``DataFrame`` (its missing values
            are missing fields). Ragas field names are accepted (``user_input``,
            ``response``, ``reference``, ``retrieved_contexts``, ...).

    Returns:
        The items, with ids defaulting to their 1-based row number.

    Raises:
        DatasetError: Naming the row and field of the first problem.
    """
    # validation makes many objects and no cycles: collections would rescan them all
    with paused_gc():
        items, problems = [], []
        for found in item_stream(data):
            if isinstance(found, DatasetError):
                problems.append(str(found))
            else:
                items.append(found)
    raise_problems(problems)
    return items


def raise_problems(problems: list[str]) -> None:
    """Raise one `DatasetError` naming every bad row (see `_all_problems`), if any."""
    if problems:
        raise _all_problems(problems)


SHOWN_PROBLEMS = 20
"""Bad rows named one by one in a dataset error; the rest are counted."""


def _all_problems(problems: list[str]) -> DatasetError:
    """One error naming every bad row (the first `SHOWN_PROBLEMS`), so that a file can be
    fixed in one pass."""
    known = ""
    if any("unknown field" in p for p in problems):  # said once, not on every row
        known = f"; known fields: {', '.join(EvalItem.model_fields)}"
    if len(problems) == 1:
        return DatasetError(problems[0] + known)
    shown = "\n".join(f"  {p}" for p in problems[:SHOWN_PROBLEMS])
    more = len(problems) - SHOWN_PROBLEMS
    rest = f"\n  ... and {more} more" if more > 0 else ""
    tail = f"\n{known.removeprefix('; ')}" if known else ""
    return DatasetError(f"{len(problems)} rows cannot be used; fix them all:\n{shown}{rest}{tail}")


def item_stream(
    data: str | os.PathLike[str] | Iterable[Any], checked: bool = False
) -> Iterator[EvalItem | DatasetError]:
    """Each row's `EvalItem`, or the `DatasetError` that names what is wrong with it, as
    the rows are read (a duplicate id is an error at its second row). ``checked``: the
    same data passed every check before (a streamed run reads its file twice), so only
    what builds the items runs: no duplicate, depth or storability checks."""
    if isinstance(data, (str, os.PathLike)):
        rows: Iterable[tuple[str, Any]] = _rows_from_path(Path(data))
    elif (
        isinstance(data, Mapping)
        and data
        and all(hasattr(split, "column_names") for split in data.values())
    ):  # a Hugging Face DatasetDict
        splits = list(data)
        raise DatasetError(
            f"data is a DatasetDict with splits {splits}; pass one split, e.g. data[{splits[0]!r}]"
        )
    elif isinstance(data, Mapping):
        raise DatasetError("data must be a path or a list of items, not a single dict")
    elif hasattr(data, "to_dict") and hasattr(data, "columns"):  # a pandas DataFrame
        rows = ((f"row {i}", row) for i, row in enumerate(_table_rows(data), start=1))
    elif hasattr(data, "__iter__") and not isinstance(data, (str, bytes)):
        rows = ((f"item {i}", row) for i, row in enumerate(data, start=1))
    else:
        raise DatasetError(
            f"data must be a path or an iterable of dicts, got {type(data).__name__}"
        )
    seen: dict[str, str] = {}
    for number, (where, row) in enumerate(rows, start=1):
        try:
            item = _item(where, row, number, checked)
        except DatasetError as exc:
            yield exc
            continue
        if not checked:
            if item.id in seen:
                yield DatasetError(
                    f"{where}: duplicate id {item.id!r} (first seen at {seen[item.id]})"
                )
                continue
            seen[item.id] = where
        yield item


def _item(where: str, row: Any, number: int, checked: bool = False) -> EvalItem:
    """One row as an `EvalItem` (its id defaulting to its number).

    Raises:
        DatasetError: Naming the row and the field that is wrong.
    """
    if type(row) is dict:
        pass  # the common case, tested first
    elif isinstance(row, DatasetError):  # the file could not give this row
        raise row
    elif isinstance(row, BaseModel) and not isinstance(row, EvalItem):
        row = row.model_dump()  # e.g. `synthesize`'s rows
    if isinstance(row, EvalItem):
        item = row
    elif type(row) is dict or isinstance(row, Mapping):
        found = _normalised(where, row)
        try:
            item = EvalItem.model_validate(found)
        except ValidationError as exc:
            check_row(where, found)  # an unstorable value is the clearer message
            raise _row_error(where, exc, found) from None
        except RecursionError:
            raise too_deep(where) from None
        except DatasetError:
            raise
        except Exception as exc:
            raise DatasetError(
                f"{where}: a value could not be read ({type(exc).__name__}); store plain values"
            ) from None
        if not checked:
            check_depth(where, item)
            if not storable(item):
                check_row(where, found)
    else:
        hint = " (one JSON object per line)" if isinstance(row, list) else ""
        raise DatasetError(f"{where}: expected an object, got {type(row).__name__}{hint}")
    if not item.id:
        item = item.model_copy(update={"id": str(number)})
    return item
