"""Two runs side by side: per-scorer deltas with paired tests, as a table and HTML."""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from scorers import PairedTest, holm, items_needed, paired_table, paired_test

from .._file._items import skip_reasons
from .._pages._page import comparison_page
from .._stats._gate import Gate
from .._stats._summaries import fmt
from .._stats._summarize import recorded_scale
from ._drop import DropGate, gates_html

if TYPE_CHECKING:
    from .._file._items import ItemResult


class ScorerDelta(PairedTest):
    """How one scorer moved between two runs, over the items both runs scored: a
    `scorers.PairedTest` (means, change, each method's 95% interval beside its own
    p-value, Holm-adjusted p-values across the compared scorers, the detectable change,
    and a ``note`` below `scorers.MIN_PAIRED` pairs), the t interval cut to
    ``[-scale, scale]``, the range a change can have.

    Attributes:
        n_paired: Items scored in both runs (the test's ``n``).
        improved: Paired items whose score went up.
        worsened: Paired items whose score went down.
        unpaired_why: When no item was scored in both runs, why (items in one run
            only, skip reasons with counts); "" otherwise.
        n_baseline: Items the baseline scored.
        candidate_lost: Of those, the ones the candidate did not score, by why:
            ``missing`` (not in the candidate, or not run on it), ``errored`` (the item or
            this scorer failed), ``skipped`` (the scorer skipped it). A drop measured
            over the rest says nothing of them: a ``--max-drop`` gate does not pass.
        lost_why: Those counts in words, with the first error's message ("" when none).
    """

    n: int = 0
    n_paired: int = 0
    improved: int = 0
    worsened: int = 0
    unpaired_why: str = ""
    n_baseline: int = 0
    candidate_lost: dict[str, int] = Field(default_factory=dict)
    lost_why: str = ""


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

    def to_html(
        self,
        path: str | os.PathLike[str],
        title: str = "scorekit compare",
        gates: Sequence[DropGate] = (),
    ) -> Path:
        """Write the comparison as one self-contained page, the verdict of each
        ``--max-drop`` gate in ``gates`` first; returns the path."""
        unpaired = (
            f"<p class='muted'>unpaired items: {len(self.only_in_baseline)} only in the "
            f"baseline, {len(self.only_in_candidate)} only in the candidate</p>"
        )
        return comparison_page(path, title, gates_html(gates) + comparison_html(self) + unpaired)

    def table(self) -> str:
        """The deltas: per scorer the paired means and change, each method's 95% interval
        beside its own p-value, the detectable change, items up and down; then the
        Holm-adjusted p-values and what was not compared (see `scorers.paired_table`)."""
        lines = [f"warning: the runs differ in {w}" for w in self.warnings]
        counts = {
            sid: f"paired {d.n_paired}, up {d.improved}, down {d.worsened}"
            for sid, d in self.scorers.items()
        }
        lines.append(
            paired_table(
                self.scorers, label="scorer", resamples=self.resamples, seed=self.seed,
                counts=counts,
            )
        )  # fmt: skip
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
            elif d.lost_why:
                lines.append(f"{sid}: {d.lost_why}")
        return "\n".join(lines)


def drop_gates(
    comparison: RunComparison, limits: dict[str, float], run: str = ""
) -> list[DropGate]:
    """Each ``--max-drop`` limit checked against ``comparison``: a gate over a scorer that
    a run lacks, or with no item scored in both runs, fails as undecided; so does one
    whose candidate did not score items the baseline scored (missing, errored or
    skipped), unless the items it did score already dropped too far (failed)."""
    found = []
    for sid, limit in limits.items():
        d = comparison.scorers.get(sid)
        if d is None or d.delta is None or d.note:
            if sid in comparison.only_baseline_scorers:
                why = f"{sid} is only in the baseline: the candidate did not run it"
            elif sid in comparison.only_candidate_scorers:
                why = f"{sid} is only in the candidate: the baseline did not run it"
            elif d is None:
                why = f"neither run has {sid}"
            elif d.delta is None:
                why = f"no item was scored by {sid} in both runs: {d.unpaired_why}"
            else:
                why = d.note
            found.append(
                DropGate(scorer=sid, limit=limit, run=run, delta=None if d is None else d.delta,
                         n_paired=0 if d is None else d.n_paired, passed=False, decided=False,
                         why=why)
            )  # fmt: skip
            continue
        dropped = d.delta < -limit
        why = (
            f"dropped by {-d.delta:.3f} > {limit:g} over {d.n_paired} paired items"
            if dropped
            else ""
        )
        if d.lost_why:
            why = f"{why}; {d.lost_why}" if why else d.lost_why
        warning = ""
        if d.detectable is not None and d.sd_difference and limit < d.detectable:
            warning = (
                (
                    f"{d.n_paired} items cannot see a drop of {limit:g} in {sid} (smallest "
                    f"detectable: {d.detectable:.3f}); about {items_needed(d.sd_difference, limit):,} "
                    "items would"
                )
                if limit > 0
                else (
                    f"a max drop of 0 in {sid} fails on any drop, however small; {d.n_paired} items "
                    f"see drops from {d.detectable:.3f} on"
                )
            )
        found.append(
            DropGate(scorer=sid, limit=limit, run=run, delta=d.delta, n_paired=d.n_paired,
                     passed=not why, decided=dropped or not d.lost_why, why=why,
                     warning=warning)
        )  # fmt: skip
    return found


def comparison_html(comparison: RunComparison, table_id: str = "comparison") -> str:
    """A `RunComparison` as an HTML table (notebooks and the HTML report): paired means,
    the change, each method's 95% interval beside its own p-value, the detectable change,
    items up and down; then the Holm-adjusted p-values and the notes."""
    head = "".join(
        f"<th>{h}</th>"
        for h in (
            "scorer", "baseline", "candidate", "delta", "95% CI (t)", "p(t)", "95% CI (boot)",
            "p(boot)", "95% CI (perm)", "p(perm)", "detectable", "paired", "up", "down",
        )
    )  # fmt: skip

    def interval(low: float | None, high: float | None) -> str:
        return "–" if low is None or high is None else f"[{low:+.3f}, {high:+.3f}]"

    body, notes = [], []
    for sid, d in comparison.scorers.items():
        delta = "–" if d.delta is None else f"{d.delta:+.3f}"
        cells = [
            fmt(d.baseline_mean, missing="–"), fmt(d.candidate_mean, missing="–"), delta,
            interval(d.ci_low, d.ci_high), fmt(d.p_t, 4, missing="–"),
            interval(d.bootstrap_low, d.bootstrap_high),
            f"&lt;{1 / comparison.resamples:.4f}"
            if d.p_bootstrap == 0
            else fmt(d.p_bootstrap, 4, missing="–"),
            interval(d.permutation_low, d.permutation_high),
            fmt(d.p_permutation, 4, missing="–"), fmt(d.detectable, missing="–"),
            str(d.n_paired), str(d.improved), str(d.worsened),
        ]  # fmt: skip
        body.append(
            f"<tr><td>{html.escape(sid)}</td>"
            + "".join(f"<td class='num'>{c}</td>" for c in cells)
            + "</tr>"
        )
        if d.note or d.unpaired_why:
            notes.append(f"{html.escape(sid)}: {html.escape(d.unpaired_why or d.note)}")
        else:
            notes.append(
                f"{html.escape(sid)}: Holm-adjusted p(t) {fmt(d.p_t_holm, 4, missing='–')}, "
                f"p(boot) {fmt(d.p_bootstrap_holm, 4, missing='–')}, "
                f"p(perm) {fmt(d.p_permutation_holm, 4, missing='–')}"
            )
    return (
        f"<table id='{table_id}'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody>"
        "</table><p class='muted'>each 95% interval is the dual of the p-value beside it (it "
        "excludes 0 exactly when p &lt; 0.05); t: paired t-test and Student interval; boot: "
        "paired bootstrap, percentile interval; perm: sign-flip randomization test, the "
        "shifts it does not reject; "
        f"{comparison.resamples:,} resamples, seed {comparison.seed}; detectable: the smallest "
        "change found with 80% power at two-sided α 0.05</p><ul class='muted'>"
        + "".join(f"<li>{n}</li>" for n in notes)
        + "</ul>"
    )


def compare_items(
    baseline: Sequence[ItemResult],
    candidate: Sequence[ItemResult],
    *,
    resamples: int = 10_000,
    seed: int = 0,
) -> RunComparison:
    """Pair two runs' items by id and compare each scorer over the items both scored."""

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
    for sid in scorer_ids:
        pairs = []
        for item_id in sorted(base):  # one order for files and results: same p-values
            b, c = base[item_id], cand.get(item_id)
            rb, rc = b.scorer_results.get(sid), c.scorer_results.get(sid) if c else None
            vb = None if rb is None else rb.value
            vc = None if rc is None else rc.value
            if vb is not None and vc is not None:
                pairs.append((vb, vc))
        scale = recorded_scale(baseline, sid)
        test = paired_test(
            [b for b, _ in pairs],
            [c for _, c in pairs],
            resamples=resamples,
            seed=seed,
            bounds=(-scale, scale),
        )
        delta = ScorerDelta(
            **test.model_dump(),
            n_paired=len(pairs),
            improved=sum(c > b for b, c in pairs),
            worsened=sum(c < b for b, c in pairs),
        )
        if not pairs:
            delta.unpaired_why = _unpaired_why(comparison, base, cand, sid)
        delta.n_baseline, delta.candidate_lost, delta.lost_why = _lost(base, cand, sid)
        comparison.scorers[sid] = delta
    deltas = list(comparison.scorers.values())
    for name in ("p_t", "p_permutation", "p_bootstrap"):  # Holm over the scorers
        for delta, adjusted in zip(deltas, holm([getattr(d, name) for d in deltas]), strict=True):
            setattr(delta, f"{name}_holm", adjusted)
    return comparison


def _lost(
    base: dict[str, ItemResult], cand: dict[str, ItemResult], sid: str
) -> tuple[int, dict[str, int], str]:
    """Of the items the baseline scored with ``sid``: how many, and those the candidate
    did not score, by why, with the counts in words."""
    scored = 0
    lost = {"missing": 0, "errored": 0, "skipped": 0}
    first_error = ""
    for item_id, b in base.items():
        rb = b.scorer_results.get(sid)
        if rb is None or rb.value is None:
            continue
        scored += 1
        c = cand.get(item_id)
        rc = None if c is None else c.scorer_results.get(sid)
        if c is None or (rc is None and c.error is None):
            lost["missing"] += 1
        elif rc is None or rc.status == "error":
            lost["errored"] += 1
            if not first_error:
                error = c.error if rc is None else rc.error
                first_error = "" if error is None else str(getattr(error, "message", error))
        elif rc.value is None:
            lost["skipped"] += 1
    total = sum(lost.values())
    if not total:
        return scored, {}, ""
    parts = [f"{n} {why}" for why, n in lost.items() if n]
    why = (
        f"the candidate did not score {total} of the {scored} items the baseline scored "
        f"({', '.join(parts)})"
    )
    if first_error:
        why += f"; first error: {first_error[:200]}"
    return scored, {k: n for k, n in lost.items() if n}, why


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
