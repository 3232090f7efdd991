"""Looking at results: DataFrames, short reprs and notebook HTML for runs and scores."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from scorers import ConfigError

if TYPE_CHECKING:
    import pandas

    from ._report import RunComparison, RunSummary
    from ._results import ItemResult

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


def _output_text(item: ItemResult) -> Any:
    output = item.target_result.output if item.target_result is not None else item.item.output
    text = getattr(output, "text", None)
    return text if isinstance(text, str) else output


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
            "output": _output_text(item),
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


def to_pandas(
    items: Iterable[ItemResult], scorer_ids: Sequence[str] | None = None
) -> pandas.DataFrame:
    """A DataFrame of `rows` (pandas is an optional extra: ``scorekit[pandas]``)."""
    pandas = _pandas()
    return pandas.DataFrame(rows(items, scorer_ids), columns=list(COLUMNS))


class ResultList(list):  # type: ignore[type-arg]
    """The items of a results file (`read_results`): a list, plus `to_pandas`."""

    def to_pandas(self) -> pandas.DataFrame:
        """One row per item × scorer; see `EvalResult.to_pandas`."""
        return to_pandas(self)


def _fmt(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def summary_html(summary: RunSummary) -> str:
    """The per-scorer summary as an HTML table (notebooks)."""
    head = "".join(
        f"<th>{h}</th>"
        for h in ("scorer", "mean", "95% CI", "scored", "skipped", "error", "calls", "tokens")
    )
    body = []
    for sid, s in summary.scorers.items():
        ci = "–" if s.ci_low is None else f"[{_fmt(s.ci_low)}, {_fmt(s.ci_high)}]"
        tokens = s.prompt_tokens + s.completion_tokens
        body.append(
            f"<tr><td>{html.escape(sid)}</td><td>{_fmt(s.mean)}</td><td>{ci}</td>"
            f"<td>{s.n_scored}</td><td>{s.n_skipped}</td><td>{s.n_error}</td>"
            f"<td>{s.model_calls}</td><td>{tokens:,}</td></tr>"
        )
    cost = "n/a" if summary.cost is None else f"${summary.cost:.4f}"
    foot = (
        f"items {summary.items} · errors {summary.item_errors} · resumed "
        f"{summary.resumed_items} · model calls {summary.model_calls} (cached "
        f"{summary.cached_calls}) · cost {cost} · {summary.wall_time_s:.2f} s"
    )
    return (
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        f"<p style='font-size:90%'>{html.escape(foot)}</p>"
    )


def comparison_html(comparison: RunComparison) -> str:
    """A `RunComparison` as an HTML table (notebooks)."""
    head = "".join(
        f"<th>{h}</th>"
        for h in ("scorer", "baseline", "candidate", "delta", "95% CI", "paired", "p(t)", "p(perm)")
    )
    body = []
    for sid, d in comparison.scorers.items():
        ci = "–" if d.ci_low is None else f"[{d.ci_low:+.3f}, {d.ci_high:+.3f}]"
        delta = "–" if d.delta is None else f"{d.delta:+.3f}"
        body.append(
            f"<tr><td>{html.escape(sid)}</td><td>{_fmt(d.baseline_mean)}</td>"
            f"<td>{_fmt(d.candidate_mean)}</td><td>{delta}</td><td>{ci}</td>"
            f"<td>{d.n_paired}</td><td>{_fmt(d.p_t_holm, 4)}</td>"
            f"<td>{_fmt(d.p_permutation_holm, 4)}</td></tr>"
        )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
