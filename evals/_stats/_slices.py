"""A run's summary per group of items: slices by a ``metadata`` key."""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from scorers import ConfigError

from ._summaries import fmt
from ._summarize import SummaryBuilder

if TYPE_CHECKING:
    from .._file._items import ItemResult
    from ._summaries import RunSummary

MISSING = "(missing)"
"""The group of items whose metadata has no value for the key (absent, or null)."""


def group_of(item: ItemResult, key: str) -> str:
    """The label of the item's group under ``key``: one label per distinct JSON value.

    Numbers are shown as JSON numbers, equal numbers are one group (``1`` and ``1.0``,
    as in Python and pandas); ``true`` / ``false``, lists and objects as JSON. Text is
    shown as it is, unless it would read as another value (``"1"``, ``"true"``,
    ``"(missing)"``, text starting with a quote): then it is shown as a JSON string, with
    its quotes. An absent key and a null value are the group `MISSING`.
    """
    return group_label(item.item.metadata.get(key))


def group_label(value: Any) -> str:
    """`group_of`'s label of one metadata value (None: `MISSING`)."""
    if value is None:
        return MISSING
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False) if _ambiguous(value) else value
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _ambiguous(text: str) -> bool:
    """Whether ``text`` shown bare would read as the label of another value."""
    if text == MISSING or text.startswith('"'):
        return True
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _order(group: str) -> tuple[int, float, str]:
    """Numbers as numbers (2 before 10), then text; `MISSING` last."""
    if group == MISSING:
        return (2, 0.0, group)
    try:
        value = json.loads(group)
    except ValueError:
        return (1, 0.0, group)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (0, float(value), group)
    return (1, 0.0, group)


def summaries_by(
    items: Iterable[ItemResult],
    key: str,
    scorer_ids: Sequence[str],
    scales: Mapping[str, float] | None = None,
) -> dict[str, RunSummary]:
    """Per group of ``key``, the summary of its items (means, 95% CIs, counts), groups
    in order (numbers by value, then text, the missing last)."""
    return slicings(items, [key], scorer_ids, scales)[key]


def slicings(
    items: Iterable[ItemResult],
    keys: Sequence[str],
    scorer_ids: Sequence[str],
    scales: Mapping[str, float] | None = None,
) -> dict[str, dict[str, RunSummary]]:
    """`summaries_by` for several keys, in one pass over ``items`` (a results file is
    read once).

    Raises:
        ConfigError: When no item has one of ``keys`` in its metadata (a misspelt key
            would otherwise give one "(missing)" group), naming the keys that exist.
    """
    builders: dict[str, dict[str, SummaryBuilder]] = {key: {} for key in keys}
    present: set[str] = set()
    for item in items:
        present.update(item.item.metadata)
        for key, groups in builders.items():
            group = group_of(item, key)
            builder = groups.get(group)
            if builder is None:
                builder = groups[group] = SummaryBuilder(scorer_ids, scales)
            builder.add(item)
    check_keys(present, [key for key in keys if builders[key]])
    return {
        key: {group: groups[group].finish(0.0) for group in sorted(groups, key=_order)}
        for key, groups in builders.items()
    }


def check_keys(present: set[str], keys: Sequence[str]) -> None:
    """Refuse slicing by a key that no item has (``present``: the items' metadata keys).

    Raises:
        ConfigError: Naming the absent keys and the keys the items have.
    """
    absent = [key for key in keys if key not in present]
    if absent:
        known = ", ".join(sorted(present)) or "none (the items have no metadata)"
        raise ConfigError(
            f"no item has the metadata key {', '.join(repr(k) for k in absent)} given to "
            f"summary_by(key) (CLI: --by); the keys the items have: {known}"
        )


def slice_table(key: str, groups: Mapping[str, RunSummary]) -> str:
    """The CLI's table of one slicing: per scorer and group, mean, 95% CI and n."""
    scorer_ids = list(dict.fromkeys(sid for s in groups.values() for sid in s.scorers))
    width = max([len("scorer"), *map(len, scorer_ids)])
    group_width = max([len(key), *map(len, groups)])
    lines = [
        f"by {key}",
        f"{'scorer':<{width}}  {key:<{group_width}}  {'mean':>6}  {'95% CI':<17}  {'scored':>6}",
    ]
    for sid in scorer_ids:
        first = True
        for group, summary in groups.items():
            s = summary.scorers.get(sid)
            if s is None:
                continue
            ci = "-" if s.ci_low is None else f"[{fmt(s.ci_low)}, {fmt(s.ci_high)}]"
            label = sid if first else ""
            first = False
            lines.append(
                f"{label:<{width}}  {group:<{group_width}}  {fmt(s.mean):>6}  {ci:<17}  "
                f"{s.n_scored:>6}"
            )
    return "\n".join(lines)


REPORT_GROUPS = 20
"""A metadata key is sliced in the report when its values form 2 to this many groups."""


def report_slices(
    items: Sequence[ItemResult], scorer_ids: Sequence[str]
) -> dict[str, dict[str, RunSummary]]:
    """The report's slicings: each metadata key whose values are texts or numbers and
    form 2 to `REPORT_GROUPS` groups."""
    keys: dict[str, set[str]] = {}
    holding: dict[str, int] = {}  # items with a value for the key
    other: set[str] = set()  # keys with a value that is not a text or a number
    for item in items:
        for key, value in item.item.metadata.items():
            if value is None:
                continue
            holding[key] = holding.get(key, 0) + 1
            if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                other.add(key)
            else:
                keys.setdefault(key, set()).add(group_of(item, key))
    for key, values in keys.items():
        if holding[key] < len(items):
            values.add(MISSING)
    wanted = [
        key
        for key, values in keys.items()
        if key not in other and 2 <= len(values) <= REPORT_GROUPS
    ]
    return slicings(items, wanted, scorer_ids)


def slice_members(
    items: Sequence[ItemResult], slices: Mapping[str, Mapping[str, RunSummary]]
) -> list[dict[str, Any]]:
    """Per sliced key, each group's label and the positions of its items in ``items``
    (what the report's filter shows: exactly the n of the Slices table)."""
    out = []
    for key, groups in slices.items():
        members: dict[str, list[int]] = {group: [] for group in groups}
        for index, item in enumerate(items):
            members[group_of(item, key)].append(index)
        groups_data = [
            {"label": g, "link": slice_link(key, g), "items": m} for g, m in members.items()
        ]
        out.append({"key": key, "groups": groups_data})
    return out


def slice_link(key: str, group: str) -> str:
    """The report's name of one group: ``[key, label]`` as JSON (a key or label may hold
    ``=``, quotes or any other character)."""
    return json.dumps([key, group], ensure_ascii=False, separators=(",", ":"))


def slices_html(slices: Mapping[str, Mapping[str, RunSummary]]) -> str:
    """The report's "Slices" section: per key, a row per group with each scorer's mean,
    95% CI and n; a group's name filters the items table to it."""
    if not slices:
        return ""
    out = ["<h2>Slices</h2>"]
    for key, groups in slices.items():
        scorer_ids = list(dict.fromkeys(sid for s in groups.values() for sid in s.scorers))
        head = "".join(f"<th>{html.escape(sid)}</th>" for sid in scorer_ids)
        rows = []
        for group, summary in groups.items():
            cells = []
            for sid in scorer_ids:
                s = summary.scorers.get(sid)
                if s is None or s.mean is None:
                    cells.append("<td class='num'>–</td>")
                    continue
                ci = "" if s.ci_low is None else f" [{fmt(s.ci_low)}, {fmt(s.ci_high)}]"
                cells.append(
                    f"<td class='num'>{fmt(s.mean)}{ci} <span class='muted'>n={s.n_scored}</span></td>"
                )
            link = html.escape(slice_link(key, group), quote=True)
            rows.append(
                f"<tr><td><a href='#' class='slice-link' data-slice='{link}'>"
                f"{html.escape(group)}</a></td>{''.join(cells)}</tr>"
            )
        out.append(
            f"<table class='slices' data-key='{html.escape(key, quote=True)}'><thead><tr>"
            f"<th>{html.escape(key)}</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        )
    return "".join(out)


def slices_json(groups: Mapping[str, RunSummary]) -> dict[str, Any]:
    """Per group: items, and per scorer mean, CI and counts (what ``--format json`` holds)."""
    return {
        group: {
            "items": summary.items,
            "scorers": {
                sid: s.model_dump(
                    include={"mean", "ci_low", "ci_high", "n_scored", "n_skipped", "n_error"}
                )
                for sid, s in summary.scorers.items()
            },
        }
        for group, summary in groups.items()
    }


__all__ = [
    "MISSING",
    "REPORT_GROUPS",
    "group_of",
    "report_slices",
    "slice_link",
    "slice_members",
    "slice_table",
    "slices_html",
    "slices_json",
    "slicings",
    "summaries_by",
]
