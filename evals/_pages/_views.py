"""Looking at results: DataFrames, short reprs and notebook HTML for runs and scores."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from scorers import ConfigError

if TYPE_CHECKING:
    import pandas

    from .._file._items import ItemResult

COLUMNS = (
    "id",
    "scorer",
    "score",
    "status",
    "reason",
    "error",
    "input",
    "ground_truth",
    "output",
    "context",
    "reference_contexts",
    "reference_context_ids",
    "metadata",
)


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ConfigError(
            "to_pandas() needs pandas: pip install 'scorekit[pandas]' (or pip install pandas)"
        ) from None
    return pandas


def display_text(value: Any) -> str | None:
    """A value as text to show: an `AgentOutput`'s text, a message history's last
    message, else ``str(value)``; None stays None."""
    if value is None:
        return None
    text = getattr(value, "text", None)
    if isinstance(text, str):
        return text
    if isinstance(value, list):
        for message in reversed(value):
            if isinstance(message, dict) and isinstance(message.get("content"), str):
                return str(message["content"])
    return str(value)


def output_of(item: ItemResult) -> Any:
    """The output an item was scored on: its target's, else its own."""
    return item.target_result.output if item.target_result is not None else item.item.output


def rows(
    items: Iterable[ItemResult], scorer_ids: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """One row per item × scorer (see `COLUMNS`); a scorer that could not run because
    its item failed first gets a row with status ``"error"`` and the item's error."""
    items = list(items)
    if scorer_ids is None:
        scorer_ids = list(dict.fromkeys(sid for item in items for sid in item.scorer_results))
    out = []
    for item in items:
        context = item.item.context
        if item.target_result is not None and item.target_result.context is not None:
            context = item.target_result.context
        fields = {
            "id": item.item.id,
            "input": item.item.input,
            "ground_truth": item.item.ground_truth,
            "output": display_text(output_of(item)),
            "context": None if context is None else [c.text for c in context],
            "reference_contexts": item.item.reference_contexts,
            "reference_context_ids": item.item.reference_context_ids,
            "metadata": item.item.metadata,
        }
        for sid in scorer_ids:
            result = item.scorer_results.get(sid)
            if result is None:
                message = item.error.message if item.error is not None else None
                score: dict[str, Any] = {
                    "score": None,
                    "status": "error" if item.error is not None else "missing",
                    "reason": "",
                    "error": message,
                }
            else:
                score = {
                    "score": result.score if result.status == "scored" else None,
                    "status": result.status,
                    "reason": result.reason,
                    "error": result.error,
                }
            out.append({"scorer": sid, **fields, **score})
    return out


WIDE_FIELDS = tuple(c for c in COLUMNS if c not in ("scorer", "score", "status", "reason", "error"))


def wide_rows(
    items: Iterable[ItemResult], scorer_ids: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """One row per item: its fields (`WIDE_FIELDS`), then one column per scorer holding
    the score (None unless scored)."""
    long = rows(items, scorer_ids)
    out: dict[str, dict[str, Any]] = {}
    for row in long:
        wide = out.setdefault(row["id"], {field: row[field] for field in WIDE_FIELDS})
        wide[row["scorer"]] = row["score"]
    return list(out.values())


def to_pandas(
    items: Iterable[ItemResult], scorer_ids: Sequence[str] | None = None, wide: bool = False
) -> pandas.DataFrame:
    """A DataFrame of `rows`, or of `wide_rows`, with a column per metadata key (named
    ``metadata.KEY`` where the key is taken); pandas is an optional extra:
    ``scorekit[pandas]``."""
    pandas = _pandas()
    items = list(items)
    if scorer_ids is None:
        scorer_ids = list(dict.fromkeys(s for item in items for s in item.scorer_results))
    fields = [*WIDE_FIELDS, *scorer_ids] if wide else list(COLUMNS)
    keys = list(dict.fromkeys(k for item in items for k in item.item.metadata))
    names = {k: f"metadata.{k}" if k in fields else k for k in keys}
    found = wide_rows(items, scorer_ids) if wide else rows(items, scorer_ids)
    for row in found:
        metadata = row["metadata"] or {}
        for key, name in names.items():
            row[name] = metadata.get(key)
    return pandas.DataFrame(found, columns=[*fields, *names.values()])
