"""``scorekit report``: one self-contained HTML file (inline CSS, JS and SVG; no network).

The summary, histograms and comparison are rendered here; the per-item table and the
per-item view are drawn in the browser from one embedded JSON document, 100 rows a page
and one item at a time, so a 10,000-item report stays quick to open.
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any

from scorers._internal import json_fallback

from .._compare._comparison import RunComparison, compare_items, comparison_html
from .._file._header import RunHeader
from .._file._items import ItemResult
from .._pages._page import PAGE_START, asset
from .._pages._views import display_text, output_of
from .._stats._gate import gates, item_status
from .._stats._slices import report_slices, slice_members, slices_html
from .._stats._summaries import RunSummary, summary_html
from .._stats._summarize import recorded_scales, summarize


def _scores_data(
    item: ItemResult, prompts: bool, header: RunHeader | None
) -> dict[str, dict[str, Any]]:
    scores = {}
    for sid, result in item.scorer_results.items():
        details = {k: v for k, v in result.details.items() if k not in ("prompts", "context")}
        calls = [
            {
                "step": c.step,
                "cached": c.cached,
                "attempts": c.attempts,
                "error": c.error,
                "prompt": "\n\n".join(str(m.get("content", "")) for m in c.messages)
                if prompts
                else "",
                "response": c.response if prompts else "",
            }
            for c in result.judge_calls
        ]
        scores[sid] = {
            "score": result.score,
            "status": item_status(item, sid, header),
            "reason": result.reason,
            "error": result.error,
            "details": details,
            "calls": calls,
        }
    return scores


def _item_data(item: ItemResult, prompts: bool, header: RunHeader | None) -> dict[str, Any]:
    target = item.target_result
    retrieval_failed = item.error is not None and item.error.phase == "target"
    context = item.item.context
    if target is not None and target.context is not None:
        context = target.context
    if retrieval_failed:
        context = None  # the data set's chunks were never retrieved for this item
    gold = item.item.reference_context_ids
    return {
        "id": item.item.id,
        "input": display_text(item.item.input) or "",
        "ground_truth": item.item.ground_truth,
        "output": display_text(output_of(item)),
        "no_answer": target is not None and target.output is None and not retrieval_failed,
        "context": None if context is None else [{"id": c.id, "text": c.text} for c in context],
        "metadata": item.item.metadata,
        "gold_ids": [] if gold is None else [str(g) for g in gold],
        "gold_texts": item.item.reference_contexts or [],
        "retrieval_failed": retrieval_failed,
        "error": None if item.error is None else item.error.model_dump(),
        "scores": _scores_data(item, prompts, header),
    }


def _histogram(values: list[float], scale: float, bins: int = 10) -> str:
    counts = [0] * bins
    for v in values:
        counts[min(int(v / scale * bins), bins - 1) if scale > 0 else 0] += 1
    top = max(counts) or 1
    width, height = 240, 90
    bars = []
    for i, count in enumerate(counts):
        h = count / top * (height - 14)
        x = i * width / bins
        bars.append(
            f'<rect x="{x + 1:.1f}" y="{height - 12 - h:.1f}" width="{width / bins - 2:.1f}" '
            f'height="{h:.1f}" fill="#4a7bd0"><title>{i / bins * scale:g}–{(i + 1) / bins * scale:g}: '
            f"{count}</title></rect>"
        )
    axis = (
        f'<text x="0" y="{height}" font-size="10">0</text>'
        f'<text x="{width - 16}" y="{height}" font-size="10">{scale:g}</text>'
    )
    return f'<svg width="{width}" height="{height}" role="img">{"".join(bars)}{axis}</svg>'


def _comparison(
    comparison: RunComparison, base: Sequence[ItemResult], cand: Sequence[ItemResult]
) -> str:
    by_id = {r.item.id: r for r in base}
    changes = []
    for item in cand:
        old = by_id.get(item.item.id)
        if old is None:
            continue
        for sid, new in item.scorer_results.items():
            before = old.scorer_results.get(sid)
            b, c = None if before is None else before.value, new.value
            if b is not None and c is not None:
                changes.append((abs(c - b), sid, item.item.id, b, c))
    changes.sort(key=lambda c: (-c[0], c[2]))
    moved = "".join(
        f"<tr><td><a href='#' class='item-link' data-id='{html.escape(item_id)}'>{html.escape(item_id)}</a>"
        f"</td><td>{html.escape(sid)}</td><td class='num'>{b:.3f}</td><td class='num'>{c:.3f}</td>"
        f"<td class='num'>{c - b:+.3f}</td></tr>"
        for size, sid, item_id, b, c in changes[:20]
        if size > 0
    )
    return (
        f"<h2>Compared with the baseline</h2>{comparison_html(comparison)}"
        "<p class='muted'>p-values two-sided, Holm–Bonferroni adjusted across scorers.</p>"
        "<h2>Items that changed most</h2>"
        "<table id='changed'><thead><tr><th>item</th><th>scorer</th><th>baseline</th>"
        f"<th>candidate</th><th>change</th></tr></thead><tbody>{moved}</tbody></table>"
    )


def _banner(summary: RunSummary, header: RunHeader | None) -> str:
    """Pass or fail at the top of the page, one line per threshold."""
    checked = gates(summary, header)
    if not checked:
        return ""
    failed = [g for g in checked if not g.passed]
    lines = "".join(
        f"<li>{'✔' if g.passed else '✘'} {html.escape(g.scorer)}: threshold {g.threshold:g}, "
        f"mean {'–' if g.mean is None else f'{g.mean:.3f}'}"
        f"{'' if g.passed else (' — ' if g.decided else ' — UNDECIDED: ') + html.escape(g.why)}</li>"
        for g in checked
    )
    undecided = [g for g in failed if not g.decided]
    verdict = (
        f"FAILED: {len(failed) - len(undecided)} of {len(checked)} thresholds"
        + (f", {len(undecided)} UNDECIDED (nothing scored)" if undecided else "")
        if len(failed) > len(undecided)
        else f"UNDECIDED, fails: {len(undecided)} of {len(checked)} thresholds had nothing scored"
        if failed
        else f"PASSED: all {len(checked)} thresholds"
    )
    return (
        f"<div id='banner' class='banner {'fail' if failed else 'pass'}'><b>{verdict}</b>"
        f"<ul>{lines}</ul></div>"
    )


def _controls(with_baseline: bool) -> str:
    """The items table's filters (scorer, slice, status, change against the baseline,
    score range, search), its pages and the export of the filtered rows."""
    change = (
        "change <select id='f-change'><option value=''>any</option>"
        "<option value='regressed'>regressed</option><option value='improved'>improved</option>"
        "<option value='new-failures'>new failures</option></select>"
        if with_baseline
        else "<select id='f-change' hidden><option value=''></option></select>"
    )
    return (
        "<div class='controls'>scorer <select id='f-scorer'></select>"
        "slice <select id='f-slice'></select>"
        "status <select id='f-status'><option value=''>any</option><option>failed</option>"
        "<option>passed</option><option>scored</option><option>skipped</option>"
        f"<option>error</option></select>{change}"
        "score ≥ <input id='f-min' size='4'> ≤ <input id='f-max' size='4'>"
        "search <input id='f-text' size='20' placeholder='question, answer, reasons, metadata'>"
        "<button id='prev'>‹</button><span id='page-info'></span><button id='next'>›</button>"
        "export <button id='export-csv'>CSV</button><button id='export-json'>JSON</button></div>"
    )


def _run_line(header: RunHeader | None) -> str:
    """Who and what made the run: judges, start time, scorekit version, git commit."""
    if header is None:
        return ""
    parts = []
    if header.judges():
        parts.append("judge " + ", ".join(header.judges()))
    if header.created:
        parts.append(header.created.replace("T", " ").replace("+00:00", " UTC"))
    if header.scorekit:
        parts.append(f"scorekit {header.scorekit}")
    if header.git_commit:
        parts.append(f"git {header.git_commit[:12]}")
    return f"<p id='run-line' class='muted'>{html.escape(' · '.join(parts))}</p>" if parts else ""


def _agreement_banner(lines: Sequence[str]) -> str:
    """People's agreement with each judged scorer's judge (`JudgeAgreement.line`)."""
    if not lines:
        return ""
    listed = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return (
        "<div id='judge-agreement' class='banner'><b>Judge agreement with people</b> "
        "(Cohen's κ and accuracy, 95% bootstrap intervals; label verdicts with "
        f"<code>scorekit view</code>)<ul>{listed}</ul></div>"
    )


def _errors_banner(summary: RunSummary) -> str:
    """A run that ended with errors says so first (the CLI exits 3 for it)."""
    if not summary.item_errors:
        return ""
    return (
        f"<div id='errors-banner' class='banner fail'><b>{summary.item_errors} of "
        f"{summary.items} items ended with an error</b> (the CLI exits 3); filter the items "
        "by status <i>error</i> to see them.</div>"
    )


def _hists(items: Sequence[ItemResult], summary: RunSummary, scales: dict[str, float]) -> str:
    hists = []
    for sid in summary.scorers:
        values = [
            v
            for r in items
            if sid in r.scorer_results and (v := r.scorer_results[sid].value) is not None
        ]
        scale = scales.get(sid) or max([1.0, *values])
        hists.append(
            f"<div class='hist'><b>{html.escape(sid)}</b> <span class='muted'>({len(values)} "
            f"scored)</span><br>{_histogram(values, scale)}</div>"
        )
    return "".join(hists)


def render_report(
    items: Sequence[ItemResult],
    *,
    summary: RunSummary | None = None,
    baseline: Sequence[ItemResult] | None = None,
    scales: dict[str, float] | None = None,
    title: str = "scorekit report",
    prompts: bool = True,
    header: RunHeader | None = None,
    agreement: Sequence[str] = (),
) -> str:
    """The report of ``items`` (and, with ``baseline``, the comparison) as one HTML page:
    a pass/fail banner from ``header``'s thresholds, the summary, histograms, an items
    table with every scorer as a column, and an item view drawn in the browser;
    ``agreement`` holds people's agreement with the judge, one line per judged scorer."""
    scorer_ids = list(dict.fromkeys(sid for item in items for sid in item.scorer_results))
    if summary is None:
        summary = summarize(items, scorer_ids, 0.0)
    if header is None:
        header = getattr(items, "header", None)
    scales = {**(recorded_scales(items) or {}), **(scales or {})}
    if header is not None:
        scales.update({sid: d.scale for sid, d in header.scorers.items()})
    slices = report_slices(items, list(summary.scorers))
    data: dict[str, Any] = {
        "scorers": list(summary.scorers),
        "scales": scales,
        "items": [_item_data(i, prompts, header) for i in items],
        "slices": slice_members(items, slices),
    }
    comparison = ""
    if baseline is not None:
        old_header = getattr(baseline, "header", None)
        data["baseline"] = [_item_data(i, False, old_header) for i in baseline]
        comparison = _comparison(compare_items(baseline, items), baseline, items)
    payload = json.dumps(data, default=json_fallback, ensure_ascii=False).translate(_JSON_IN_HTML)
    return (
        f"{PAGE_START}"
        f"<title>{html.escape(title)}</title><style>{asset('report.css')}</style></head><body>"
        f"<h1>{html.escape(title)}</h1>{_run_line(header)}{_errors_banner(summary)}"
        f"{_banner(summary, header)}{_agreement_banner(agreement)}"
        f"<h2>Summary</h2>{summary_html(summary)}"
        f"<h2>Score distributions</h2><div class='hists'>{_hists(items, summary, scales)}</div>"
        f"{comparison}{slices_html(slices)}"
        f"<h2>Items</h2>{_controls(baseline is not None)}"
        "<table id='items'><thead id='items-head'></thead><tbody id='items-body'></tbody></table>"
        "<div id='view'><p class='muted'>Click an item to see its question, chunks, claims, "
        "verdicts, prompts and errors.</p></div>"
        f"<script type='application/json' id='report-data'>{payload}</script>"
        f"<script>{asset('report.js')}</script></body></html>"
    )


_JSON_IN_HTML = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)
"""JSON escapes for the characters that could end or alter the page's data block
(``</script>``, ``<!--``) or a script reading it; ``JSON.parse`` restores them."""
