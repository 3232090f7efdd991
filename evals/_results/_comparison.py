"""Two runs side by side: per-scorer deltas with paired tests, as a table and HTML."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from scorers import mean_ci

from ._gate import Gate
from ._items import skip_reasons
from ._stats import fmt
from ._summary import recorded_scale

if TYPE_CHECKING:
    from ._items import ItemResult


class ScorerDelta(BaseModel):
    """How one scorer moved between two runs, over the items both runs scored.

    Attributes:
        baseline_mean: Baseline mean over the paired items.
        candidate_mean: Candidate mean over the paired items.
        delta: ``candidate_mean - baseline_mean``.
        ci_low: Lower end of the 95% paired Student-t interval of the delta (cut to
            ``[-scale, scale]``, the range a change can have).
        ci_high: Upper end.
        n_paired: Items scored in both runs.
        improved: Paired items whose score went up.
        worsened: Paired items whose score went down.
        p_t: Two-sided p-value of the paired t-test (``scipy.stats.ttest_rel``).
        p_permutation: The sign-flip randomization test's p-value.
        p_bootstrap: The paired bootstrap's p-value (shift method).
        p_t_holm: ``p_t`` Holm–Bonferroni adjusted across the compared scorers.
        p_permutation_holm: The same for ``p_permutation``.
        p_bootstrap_holm: The same for ``p_bootstrap``.
        unpaired_why: When no item was scored in both runs, why (items in one run
            only, skip reasons with counts); "" otherwise.
    """

    baseline_mean: float | None = None
    candidate_mean: float | None = None
    delta: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    n_paired: int = 0
    improved: int = 0
    worsened: int = 0
    p_t: float | None = None
    p_permutation: float | None = None
    p_bootstrap: float | None = None
    p_t_holm: float | None = None
    p_permutation_holm: float | None = None
    p_bootstrap_holm: float | None = None
    unpaired_why: str = ""


class RunComparison(BaseModel):
    """`compare_runs` result: per-scorer deltas and the items only one run has.

    Attributes:
        scorers: Deltas keyed by scorer id (scorers present in both runs).
        only_in_baseline: Item ids the candidate lacks.
        only_in_candidate: Item ids the baseline lacks.
        resamples: Resamples of the randomization and bootstrap tests.
        seed: Their random seed.
        warnings: What differs between the runs without making them incomparable (a
            shared scorer's judge).
        candidate_gates: The candidate's thresholds (from its header) against its means.
        only_baseline_scorers: Scorers that only the baseline ran (not compared).
        only_candidate_scorers: Scorers that only the candidate ran (not compared).
    """

    scorers: dict[str, ScorerDelta] = Field(default_factory=dict)
    only_in_baseline: list[str] = Field(default_factory=list)
    only_in_candidate: list[str] = Field(default_factory=list)
    resamples: int = 10_000
    seed: int = 0
    warnings: list[str] = Field(default_factory=list)
    candidate_gates: list[Gate] = Field(default_factory=list)
    only_baseline_scorers: list[str] = Field(default_factory=list)
    only_candidate_scorers: list[str] = Field(default_factory=list)

    def __repr__(self) -> str:
        deltas = {
            sid: None if d.delta is None else round(d.delta, 4) for sid, d in self.scorers.items()
        }
        return (
            f"RunComparison(deltas={deltas}, only_in_baseline={len(self.only_in_baseline)}, "
            f"only_in_candidate={len(self.only_in_candidate)})"
        )

    def _repr_html_(self) -> str:
        return comparison_html(self)

    def table(self) -> str:
        """A table of the deltas."""
        width = max([len("scorer"), *(len(s) for s in self.scorers)])
        lines = [f"warning: the runs differ in {w}" for w in self.warnings]
        lines += [
            f"{'scorer':<{width}}  {'baseline':>8}  {'candidate':>9}  {'delta':>7}  "
            f"{'95% CI':<19}  {'paired':>6}  {'up':>4}  {'down':>4}  {'p(t)':>6}  "
            f"{'p(perm)':>7}  {'p(boot)':>7}"
        ]
        for sid, d in self.scorers.items():
            ci = "-" if d.ci_low is None else f"[{d.ci_low:+.3f}, {d.ci_high:+.3f}]"
            delta = "-" if d.delta is None else f"{d.delta:+.3f}"
            lines.append(
                f"{sid:<{width}}  {fmt(d.baseline_mean):>8}  {fmt(d.candidate_mean):>9}  "
                f"{delta:>7}  {ci:<19}  {d.n_paired:>6}  {d.improved:>4}  {d.worsened:>4}  "
                f"{fmt(d.p_t_holm, 4):>6}  {fmt(d.p_permutation_holm, 4):>7}  "
                f"{fmt(d.p_bootstrap_holm, 4):>7}"
            )
        lines.append("")
        lines.append(
            "p-values two-sided, Holm-Bonferroni adjusted across the scorers; randomization "
            f"and bootstrap: {self.resamples:,} resamples, seed {self.seed}"
        )
        if self.only_in_baseline or self.only_in_candidate:
            lines.append("")
            lines.append(
                f"unpaired items: {len(self.only_in_baseline)} only in baseline, "
                f"{len(self.only_in_candidate)} only in candidate"
            )
        for run, found in (("baseline", self.only_baseline_scorers),
                           ("candidate", self.only_candidate_scorers)):  # fmt: skip
            if found:
                lines.append(f"not compared: {', '.join(found)} (only in the {run})")
        for sid, d in self.scorers.items():
            if d.unpaired_why:
                lines.append(f"{sid}: nothing to compare: {d.unpaired_why}")
        return "\n".join(lines)


class DropGate(BaseModel):
    """One ``--max-drop`` limit of a comparison and its verdict.

    Attributes:
        scorer: The scorer id.
        limit: The largest drop of the paired mean allowed.
        run: The candidate's name ("" with one candidate).
        delta: The paired mean change (None when nothing was paired).
        n_paired: Items scored in both runs.
        passed: Whether the drop stayed within ``limit``.
        decided: False when there was nothing to decide on (no paired item, or the
            scorer is missing from a run): such a gate fails, never passes.
        why: Why it failed, in words ("" when it passed).
    """

    scorer: str
    limit: float
    run: str = ""
    delta: float | None
    n_paired: int
    passed: bool
    decided: bool = True
    why: str = ""


def drop_gates(
    comparison: RunComparison, limits: dict[str, float], run: str = ""
) -> list[DropGate]:
    """Each ``--max-drop`` limit checked against ``comparison``: a gate over a scorer that
    a run lacks, or with no item scored in both runs, fails as undecided."""
    found = []
    for sid, limit in limits.items():
        d = comparison.scorers.get(sid)
        if d is None or d.delta is None:
            if sid in comparison.only_baseline_scorers:
                why = f"{sid} is only in the baseline: the candidate did not run it"
            elif sid in comparison.only_candidate_scorers:
                why = f"{sid} is only in the candidate: the baseline did not run it"
            elif d is None:
                why = f"neither run has {sid}"
            else:
                why = f"no item was scored by {sid} in both runs: {d.unpaired_why}"
            found.append(
                DropGate(scorer=sid, limit=limit, run=run, delta=None, n_paired=0,
                         passed=False, decided=False, why=why)
            )  # fmt: skip
            continue
        dropped = d.delta < -limit
        why = (
            f"dropped by {-d.delta:.3f} > {limit:g} over {d.n_paired} paired items"
            if dropped
            else ""
        )
        found.append(
            DropGate(scorer=sid, limit=limit, run=run, delta=d.delta, n_paired=d.n_paired,
                     passed=not dropped, why=why)
        )  # fmt: skip
    return found


def comparison_html(comparison: RunComparison, table_id: str = "comparison") -> str:
    """A `RunComparison` as an HTML table (notebooks and the HTML report): paired means,
    delta, 95% CI, items up and down, Holm-adjusted p-values."""
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "scorer",
            "baseline",
            "candidate",
            "delta",
            "95% CI",
            "paired",
            "up",
            "down",
            "p(t)",
            "p(perm)",
        )
    )
    body = []
    for sid, d in comparison.scorers.items():
        ci = "–" if d.ci_low is None else f"[{d.ci_low:+.3f}, {d.ci_high:+.3f}]"
        delta = "–" if d.delta is None else f"{d.delta:+.3f}"
        body.append(
            f"<tr><td>{html.escape(sid)}</td><td class='num'>{fmt(d.baseline_mean, missing='–')}</td>"
            f"<td class='num'>{fmt(d.candidate_mean, missing='–')}</td><td class='num'>{delta}</td>"
            f"<td>{ci}</td><td class='num'>{d.n_paired}</td><td class='num'>{d.improved}</td>"
            f"<td class='num'>{d.worsened}</td><td class='num'>{fmt(d.p_t_holm, 4, missing='–')}</td>"
            f"<td class='num'>{fmt(d.p_permutation_holm, 4, missing='–')}</td></tr>"
        )
    return (
        f"<table id='{table_id}'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody>"
        "</table>"
    )


def compare_items(
    baseline: Sequence[ItemResult],
    candidate: Sequence[ItemResult],
    *,
    resamples: int = 10_000,
    seed: int = 0,
) -> RunComparison:
    """Pair two runs' items by id and compare each scorer over the items both scored."""
    from scorers import holm, paired_test

    base = {r.item.id: r for r in baseline}
    cand = {r.item.id: r for r in candidate}
    comparison = RunComparison(
        only_in_baseline=[i for i in base if i not in cand],
        only_in_candidate=[i for i in cand if i not in base],
        resamples=resamples,
        seed=seed,
    )
    in_base = list(dict.fromkeys(s for r in baseline for s in r.scorer_results))
    in_cand = list(dict.fromkeys(s for r in candidate for s in r.scorer_results))
    scorer_ids = [sid for sid in in_base if sid in in_cand]
    comparison.only_baseline_scorers = [sid for sid in in_base if sid not in in_cand]
    comparison.only_candidate_scorers = [sid for sid in in_cand if sid not in in_base]
    tests = []
    for sid in scorer_ids:
        pairs = []
        for item_id in sorted(base):  # one order for files and results: same p-values
            b, c = base[item_id], cand.get(item_id)
            rb, rc = b.scorer_results.get(sid), c.scorer_results.get(sid) if c else None
            vb = None if rb is None else rb.value
            vc = None if rc is None else rc.value
            if vb is not None and vc is not None:
                pairs.append((vb, vc))
        test = paired_test(
            [b for b, _ in pairs], [c for _, c in pairs], resamples=resamples, seed=seed
        )
        tests.append(test)
        delta = ScorerDelta(n_paired=len(pairs))
        if not pairs:
            delta.unpaired_why = _unpaired_why(comparison, base, cand, sid)
        if pairs:
            delta.baseline_mean = math.fsum(b for b, _ in pairs) / len(pairs)
            delta.candidate_mean = math.fsum(c for _, c in pairs) / len(pairs)
            scale = recorded_scale(baseline, sid)
            delta.delta, delta.ci_low, delta.ci_high = mean_ci(
                [c - b for b, c in pairs], (-scale, scale)
            )
            delta.improved = sum(c > b for b, c in pairs)
            delta.worsened = sum(c < b for b, c in pairs)
        comparison.scorers[sid] = delta
    for name in ("p_t", "p_permutation", "p_bootstrap"):  # Holm over the scorers
        values = [getattr(test, name) for test in tests]
        for delta, value, adjusted in zip(
            comparison.scorers.values(), values, holm(values), strict=True
        ):
            setattr(delta, name, value)
            setattr(delta, f"{name}_holm", adjusted)
    return comparison


def _unpaired_why(
    comparison: RunComparison,
    base: dict[str, ItemResult],
    cand: dict[str, ItemResult],
    sid: str,
) -> str:
    """Why no item of ``sid`` was scored in both runs, with ids and skip reasons."""

    def ids(found: list[str]) -> str:
        return ", ".join(found[:5]) + (", ..." if len(found) > 5 else "")

    parts = []
    if comparison.only_in_baseline:
        parts.append(f"{len(comparison.only_in_baseline)} items only in the baseline "
                     f"({ids(comparison.only_in_baseline)})")  # fmt: skip
    if comparison.only_in_candidate:
        parts.append(f"{len(comparison.only_in_candidate)} only in the candidate "
                     f"({ids(comparison.only_in_candidate)})")  # fmt: skip
    shared = [i for i in base if i in cand]
    if shared:
        for name, run in (("baseline", base), ("candidate", cand)):
            why = skip_reasons((run[i] for i in shared), sid)
            if why:
                parts.append(f"{len(shared)} shared items, in the {name}: {why}")
    return "; ".join(parts) or "neither run scored an item"
