"""Many runs against one baseline: per scorer, each run's mean and interval, and whether
its difference from the baseline is real (paired tests, Holm-adjusted across runs and
scorers) — "which of my five retriever configurations is best, and is it real"."""

from __future__ import annotations

import os
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from scorers import mean_ci

from .._pages._page import comparison_page
from .._stats._summaries import fmt
from .._stats._summarize import recorded_scale
from ._comparison import RunComparison, compare_items
from ._drop import gates_html

if TYPE_CHECKING:
    from .._file._items import ItemResult
    from ._drop import DropGate

ALPHA = 0.05
"""The level at which a Holm-adjusted randomization p-value marks a difference as real."""


class RunRow(BaseModel):
    """One run's line in a scorer's table.

    Attributes:
        run: The run's name.
        mean: Mean over the items it scored (None when none).
        ci_low: Lower end of the 95% Student-t interval (cut to ``[0, scale]``).
        ci_high: Upper end.
        n: Items scored.
        delta: Against the baseline, over the items both scored (None for the baseline).
        p_t_holm: The paired t-test's p-value, Holm-adjusted across runs and scorers.
        p_permutation_holm: The randomization test's, adjusted the same way.
        significant: ``p_permutation_holm < ALPHA`` (None for the baseline).
    """

    run: str
    mean: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    n: int = 0
    delta: float | None = None
    p_t_holm: float | None = None
    p_permutation_holm: float | None = None
    significant: bool | None = None


class RunsComparison(BaseModel):
    """`compare_runs` of a baseline and several candidates.

    Attributes:
        baseline: The baseline's name.
        candidates: The candidates' names, in the order given.
        scorers: Per scorer shared by every run: the baseline's row, then each
            candidate's.
        pairs: Each candidate's `RunComparison` with the baseline (its ``*_holm``
            p-values adjusted across every candidate and scorer).
        resamples: Resamples of the randomization and bootstrap tests.
        seed: Their random seed.
        not_compared: Scorers that only some runs have, with the runs that have them.
    """

    baseline: str
    candidates: list[str]
    scorers: dict[str, list[RunRow]] = Field(default_factory=dict)
    pairs: dict[str, RunComparison] = Field(default_factory=dict)
    not_compared: dict[str, list[str]] = Field(default_factory=dict)
    resamples: int = 10_000
    seed: int = 0

    def best(self, scorer_id: str) -> str | None:
        """The run with the highest mean of ``scorer_id``; None when no run scored or
        several share the highest."""
        rows = sorted(
            (r for r in self.scorers.get(scorer_id, []) if r.mean is not None),
            key=lambda r: r.mean or 0.0,
            reverse=True,
        )
        if not rows or (len(rows) > 1 and rows[1].mean == rows[0].mean):
            return None
        return rows[0].run

    def _repr_html_(self) -> str:
        return self.html()

    def html(self) -> str:
        """The comparison as HTML tables, one per scorer (notebooks; `to_html`)."""
        out = []
        for sid, rows in self.scorers.items():
            best = self.best(sid)
            body = "".join(_html_row(row, row.run == best) for row in rows)
            out.append(
                f"<h3>{escape(sid)}</h3><table class='runs' data-scorer='{escape(sid)}'><thead>"
                "<tr><th>run</th><th>mean</th><th>95% CI</th><th>n</th><th>delta</th>"
                f"<th>Holm p(t)</th><th>Holm p(perm)</th></tr></thead><tbody>{body}</tbody></table>"
            )
        note = (
            f"<p class='muted'>delta: against {escape(self.baseline)}, over the items both "
            "scored; p-values two-sided, Holm-Bonferroni adjusted across every candidate and "
            f"scorer; * p(perm) &lt; 0.05; {self.resamples:,} resamples, seed {self.seed}</p>"
        )
        return "".join(out) + note

    def to_html(
        self,
        path: str | os.PathLike[str],
        title: str = "scorekit runs",
        gates: Sequence[DropGate] = (),
    ) -> Path:
        """Write the comparison as one self-contained page, with the verdict of each
        ``--max-drop`` gate in ``gates`` first; returns the path."""
        body = gates_html(gates) + self.html() + self._not_compared_html()
        return comparison_page(path, title, body)

    def _not_compared_html(self) -> str:
        if not self.not_compared:
            return ""
        rows = "".join(
            f"<li>{escape(sid)}: only in {escape(', '.join(runs))}</li>"
            for sid, runs in self.not_compared.items()
        )
        return f"<p class='muted'>not compared (not in every run):</p><ul>{rows}</ul>"

    def table(self) -> str:
        """One block per scorer: each run's mean, 95% CI, items, and its difference from
        the baseline with the Holm-adjusted p-values (``*``: real at 5%)."""
        width = max(len(name) for name in [self.baseline, *self.candidates, "run"])
        lines: list[str] = []
        for sid, rows in self.scorers.items():
            lines += [
                sid,
                f"  {'run':<{width}}  {'mean':>6}  {'95% CI':<16}  {'n':>5}  {'delta':>7}  "
                f"{'Holm p(t)':>9}  {'Holm p(perm)':>12}",
            ]
            for row in rows:
                ci = "-" if row.ci_low is None else f"[{row.ci_low:.3f}, {row.ci_high:.3f}]"
                delta = "" if row.delta is None else f"{row.delta:+.3f}"
                mark = "*" if row.significant else ""
                best = "  best" if row.run == self.best(sid) else ""
                p_t, p_perm = (
                    fmt(row.p_t_holm, 4, missing=""),
                    fmt(row.p_permutation_holm, 4, missing=""),
                )
                lines.append(
                    f"  {row.run:<{width}}  {fmt(row.mean):>6}  {ci:<16}  {row.n:>5}  "
                    f"{delta:>7}  {p_t:>9}  {p_perm + mark:>12}{best}".rstrip()
                )
            lines.append("")
        lines.append(
            f"delta: against {self.baseline}, over the items both scored; p-values two-sided, "
            "Holm-Bonferroni adjusted across every candidate and scorer; * p(perm) < 0.05; "
            f"randomization and bootstrap: {self.resamples:,} resamples, seed {self.seed}"
        )
        for sid, runs in self.not_compared.items():
            lines.append(f"not compared: {sid} (only in {', '.join(runs)})")
        return "\n".join(lines)


def _html_row(row: RunRow, best: bool) -> str:
    ci = "–" if row.ci_low is None else f"[{row.ci_low:.3f}, {row.ci_high:.3f}]"
    delta = "" if row.delta is None else f"{row.delta:+.3f}"
    mark = "*" if row.significant else ""
    cells = [
        f"<td>{escape(row.run)}</td>",
        f"<td class='num'>{fmt(row.mean, missing='–')}</td>",
        f"<td>{ci}</td>",
        f"<td class='num'>{row.n}</td>",
        f"<td class='num'>{delta}</td>",
        f"<td class='num'>{fmt(row.p_t_holm, 4, missing='')}</td>",
        f"<td class='num'>{fmt(row.p_permutation_holm, 4, missing='')}{mark}</td>",
    ]
    return f"<tr class='{'best' if best else ''}'>{''.join(cells)}</tr>"


def compare_many(
    runs: Sequence[tuple[str, Sequence[ItemResult]]], *, resamples: int = 10_000, seed: int = 0
) -> RunsComparison:
    """The baseline (``runs[0]``) against every other run, scorer by scorer."""
    from scorers import holm

    (base_name, base), candidates = runs[0], runs[1:]
    out = RunsComparison(
        baseline=base_name, candidates=[n for n, _ in candidates], resamples=resamples, seed=seed
    )
    for name, items in candidates:
        out.pairs[name] = compare_items(base, items, resamples=resamples, seed=seed)
    shared = [sid for sid in _scorer_ids(base) if all(sid in p.scorers for p in out.pairs.values())]
    having: dict[str, list[str]] = {}
    for name, items in runs:
        for sid in _scorer_ids(items):
            having.setdefault(sid, []).append(name)
    out.not_compared = {sid: names for sid, names in having.items() if sid not in shared}
    cells = [(name, sid) for name in out.pairs for sid in shared]
    for test in ("p_t", "p_permutation", "p_bootstrap"):  # Holm over runs and scorers
        raw = [getattr(out.pairs[name].scorers[sid], test) for name, sid in cells]
        for (name, sid), adjusted in zip(cells, holm(raw), strict=True):
            setattr(out.pairs[name].scorers[sid], f"{test}_holm", adjusted)
    for sid in shared:
        rows = [_row(base_name, base, sid)]
        for name, items in candidates:
            row, delta = _row(name, items, sid), out.pairs[name].scorers[sid]
            row.delta, row.p_t_holm = delta.delta, delta.p_t_holm
            row.p_permutation_holm = delta.p_permutation_holm
            p = delta.p_permutation_holm
            row.significant = None if p is None else p < ALPHA
            rows.append(row)
        out.scorers[sid] = rows
    return out


def _scorer_ids(items: Sequence[ItemResult]) -> list[str]:
    return list(dict.fromkeys(sid for r in items for sid in r.scorer_results))


def _row(name: str, items: Sequence[ItemResult], sid: str) -> RunRow:
    scores = [
        v
        for r in items
        if sid in r.scorer_results and (v := r.scorer_results[sid].value) is not None
    ]
    mean, low, high = mean_ci(scores, (0.0, recorded_scale(items, sid)))
    return RunRow(run=name, mean=mean, ci_low=low, ci_high=high, n=len(scores))


__all__ = ["ALPHA", "RunRow", "RunsComparison", "compare_many"]
