"""Summaries of a run: means, confidence intervals, totals, the table the CLI prints."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from scorers import JudgeCall


def two_level_ci(
    sample_scores: Sequence[Sequence[float]], resamples: int = 2000, seed: int = 0
) -> tuple[float, float] | None:
    """95% percentile interval of the mean over items whose scores were sampled k times:
    items are resampled with replacement and, within each, its k samples too
    (`scorers.bootstrap`, `scorers.bootstrap_interval`)."""
    import numpy as np

    from scorers import bootstrap, bootstrap_interval

    rows = [list(s) for s in sample_scores if len(s)]
    if len(rows) < 2:
        return None
    width = max(len(r) for r in rows)
    matrix = np.array([r + [r[-1]] * (width - len(r)) for r in rows], dtype=np.float64)
    sizes = np.array([len(r) for r in rows])
    rng = np.random.default_rng(seed)

    def mean_of_item_means(items: np.ndarray, counts: np.ndarray) -> np.ndarray:
        # within each resampled item, its samples resampled too (from the same stream)
        within = (rng.random(items.shape) * counts[..., None]).astype(np.int64)
        return np.take_along_axis(items, within, axis=2).mean(axis=2).mean(axis=1)

    means = bootstrap(
        mean_of_item_means, matrix, sizes, resamples=resamples, rng=rng, cells=200_000
    )
    return bootstrap_interval(means)


class CallTotals(BaseModel):
    """Model calls and what they used.

    Attributes:
        model_calls: Requests sent to the model in this invocation: first attempts,
            retries and repair rounds, calls of scorer runs that failed included (cache
            hits excluded; items taken from an earlier results file made none).
        cached_calls: Scorer calls answered from the cache.
        prompt_tokens: Prompt tokens of those requests.
        completion_tokens: Completion tokens.
        cost: USD when every request's cost is known, else None.
    """

    model_calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = 0.0

    def add(self, call: JudgeCall) -> None:
        """Count one call."""
        if call.cached:
            self.cached_calls += 1
            return
        self.model_calls += call.attempts
        self.prompt_tokens += call.prompt_tokens
        self.completion_tokens += call.completion_tokens
        self.cost = _add_cost(self.cost, call.cost)

    def merge(self, other: CallTotals) -> None:
        """Add ``other``'s totals to these."""
        self.model_calls += other.model_calls
        self.cached_calls += other.cached_calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost = _add_cost(self.cost, other.cost)


class ScorerSummary(CallTotals):
    """Aggregate of one scorer over a run (plus its `CallTotals`).

    Attributes:
        mean: Mean score over items with ``status == "scored"`` (None if there are none).
        ci_low: Lower end of the 95% Student-t confidence interval of the mean.
        ci_high: Upper end.
        n_scored: Items scored.
        n_skipped: Items the scorer did not apply to (e.g. no ground truth).
        n_error: Items where the scorer failed, or could not run because the item failed
            first (target error, timeout).
        judge_agreement: With ``samples=k``: the mean share of samples agreeing with
            the majority verdict (1.0: the judge never wavered).
        ci_low_judge: Lower end of a 95% interval of the mean that includes judge noise:
            a two-level bootstrap over items and, within each item, its k samples.
        ci_high_judge: Upper end.
        detectable: The smallest change of the mean that a paired comparison of a future
            run over these items would find with 80% power at two-sided α 0.05, from the
            per-item spread, taking the two runs' scores as uncorrelated (differences
            with √2 × the standard deviation of the scores; runs that move together, as
            two versions of one retriever do, see smaller changes). None below
            `scorers.MIN_PAIRED` (6) scored items (no test is made on fewer pairs), and
            None when every item scored the same (no spread to estimate it from: 0 would
            claim any change can be seen).
    """

    mean: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    n_scored: int = 0
    n_skipped: int = 0
    n_error: int = 0
    judge_agreement: float | None = None
    ci_low_judge: float | None = None
    ci_high_judge: float | None = None
    detectable: float | None = None


# above this share of the wall time busy, answers queue for the client's CPU (measured in
# the throughput benchmark: 64-72% busy at 1.27-1.44x of the ideal schedule, <= 35% busy
# within 1.13x)
CLIENT_BOUND_SHARE = 0.5


class RunSummary(CallTotals):
    """Aggregate of a whole run (plus `CallTotals` over scorers and the target agent).

    Attributes:
        scorers: Per-scorer summaries, keyed by scorer id.
        target: The target's own model calls (an `Agent`'s chat calls), also included in
            the run's totals.
        items: Items in the run (resumed ones included).
        item_errors: Items with a target, scorer or timeout error.
        resumed_items: Items taken whole from an earlier results file.
        rescored_items: Items of an earlier results file that resuming re-scored in part
            (a scorer was new, had failed, or had another configuration).
        rescored_for_config: Scorer results re-run on resume because the scorer's
            configuration (its `Scorer.fingerprint`: judge, options, scale, prompt
            version) differed from the one that wrote them.
        wall_time_s: Wall time of this invocation.
        client_cpu_s: CPU time this process spent meanwhile (every thread; litellm's
            one-time import and the judge's helper processes not included). Over half of
            ``wall_time_s`` means the client, not the model, likely set the pace.
    """

    scorers: dict[str, ScorerSummary] = Field(default_factory=dict)
    target: CallTotals = Field(default_factory=CallTotals)
    items: int = 0
    item_errors: int = 0
    resumed_items: int = 0
    rescored_items: int = 0
    rescored_for_config: int = 0
    wall_time_s: float = 0.0
    client_cpu_s: float = 0.0

    @property
    def client_bound(self) -> bool:
        """Whether this process was busy over half of a run that made model calls (and
        took at least a second): the judge client's CPU, not the model, was likely the
        limit."""
        return (
            self.model_calls > 0
            and self.wall_time_s >= 1.0
            and self.client_cpu_s > CLIENT_BOUND_SHARE * self.wall_time_s
        )


def _add_cost(total: float | None, cost: float | None) -> float | None:
    return None if total is None or cost is None else total + cost


def fmt(value: float | None, digits: int = 3, missing: str = "-") -> str:
    """A number with ``digits`` decimals, or ``missing`` for None; never ``-0.000``."""
    if value is None:
        return missing
    text = f"{value:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def wall_time(summary: RunSummary) -> str:
    """The run's wall time, or what a summary rebuilt from results files says instead."""
    if summary.wall_time_s == 0 and summary.items:
        return "wall time not recorded (rebuilt from results)"
    return f"{summary.wall_time_s:.2f} s"


def format_table(
    summary: RunSummary,
    thresholds: Mapping[str, float] | None = None,
    failures: Sequence[str] = (),
    min_scored: float | None = None,
) -> str:
    """The per-scorer summary table printed by the CLI."""
    width = max([len("scorer"), *(len(s) for s in summary.scorers)])
    lines = [
        f"{'scorer':<{width}}  {'mean':>6}  {'95% CI':<17}  {'scored':>6}  {'skipped':>7}  "
        f"{'error':>5}  {'calls':>5}  {'detectable':>10}"
    ]
    for sid, s in summary.scorers.items():
        ci = "-" if s.ci_low is None else f"[{fmt(s.ci_low)}, {fmt(s.ci_high)}]"
        lines.append(
            f"{sid:<{width}}  {fmt(s.mean):>6}  {ci:<17}  {s.n_scored:>6}  {s.n_skipped:>7}  "
            f"{s.n_error:>5}  {s.model_calls:>5}  {fmt(s.detectable):>10}"
        )
    cost = "n/a" if summary.cost is None else f"${summary.cost:.4f}"
    target = f"target {summary.target.model_calls}, " if summary.target.model_calls else ""
    lines.append("")
    resumed = f"resumed {summary.resumed_items}"
    if summary.rescored_items:
        resumed += f", re-scored {summary.rescored_items}"
    if summary.rescored_for_config:
        resumed += f" ({summary.rescored_for_config} scorer results for a changed configuration)"
    lines.append(
        f"items {summary.items} (errors {summary.item_errors}, {resumed})"
        f" · model calls {summary.model_calls} ({target}cached {summary.cached_calls})"
        f" · tokens {summary.prompt_tokens + summary.completion_tokens:,} · cost {cost}"
        f" · {wall_time(summary)}"
    )
    for sid, s in summary.scorers.items():
        if s.judge_agreement is not None:
            ci = (
                ""
                if s.ci_low_judge is None
                else (f"; 95% CI with judge noise [{fmt(s.ci_low_judge)}, {fmt(s.ci_high_judge)}]")
            )
            lines.append(f"{sid}: judge agreement {s.judge_agreement:.3f} across samples{ci}")
    if summary.client_bound:
        lines.append(
            f"note: this process was busy {summary.client_cpu_s / summary.wall_time_s:.0%} of "
            "the run: the judge client's CPU, not the model, likely set the pace; "
            "Judge(client_processes=N) (CLI: --client-processes N) spreads it over processes"
        )
    for sid, minimum in (thresholds or {}).items():
        found = summary.scorers.get(sid)
        mean = found.mean if found is not None else None
        verdict = "passed"
        if sid in failures:  # nothing scored: nothing to decide on (exit 4), not a low mean
            verdict = "FAILED" if mean is not None else "UNDECIDED, fails"
        scored = f"scored {found.n_scored}/{summary.items}" if found is not None else "not run"
        need = "" if min_scored is None else f", needs {min_scored:.0%} scored"
        lines.append(
            f"threshold {sid} >= {minimum:g}: {verdict} (mean {fmt(mean)}, {scored}{need})"
        )
    return "\n".join(lines)


def summary_html(summary: RunSummary, table_id: str = "summary") -> str:
    """The per-scorer summary as an HTML table (notebooks and the HTML report)."""
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "scorer",
            "mean",
            "95% CI",
            "scored",
            "skipped",
            "error",
            "calls",
            "tokens",
            "cost",
        )
    )
    body = []
    for sid, s in summary.scorers.items():
        ci = (
            "–"
            if s.ci_low is None
            else f"[{fmt(s.ci_low, missing='–')}, {fmt(s.ci_high, missing='–')}]"
        )
        cost = "n/a" if s.cost is None else f"${s.cost:.4f}"
        body.append(
            f"<tr><td>{html.escape(sid)}</td><td class='num'>{fmt(s.mean, missing='–')}</td><td>{ci}</td>"
            f"<td class='num'>{s.n_scored}</td><td class='num'>{s.n_skipped}</td>"
            f"<td class='num'>{s.n_error}</td><td class='num'>{s.model_calls}</td>"
            f"<td class='num'>{s.prompt_tokens + s.completion_tokens:,}</td>"
            f"<td class='num'>{cost}</td></tr>"
        )
    cost = "n/a" if summary.cost is None else f"${summary.cost:.4f}"
    foot = (
        f"items {summary.items} · errors {summary.item_errors} · resumed "
        f"{summary.resumed_items} · model calls {summary.model_calls} (cached "
        f"{summary.cached_calls}) · cost {cost} · {wall_time(summary)}"
    )
    return (
        f"<table id='{table_id}'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody>"
        f"</table><p class='muted' style='font-size:90%'>{html.escape(foot)}</p>"
    )
