"""``scorekit report``: one self-contained HTML file (inline CSS, JS and SVG; no network).

The summary, histograms and comparison are rendered here; the per-item table and the
per-item view are drawn in the browser from one embedded JSON document, 100 rows a page
and one item at a time, so a 10,000-item report stays quick to open.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from scorers._runtime import json_fallback, write_atomically

from ._comparison import RunComparison, compare_items, comparison_html
from ._items import ItemResult
from ._stats import RunSummary, summary_html
from ._summary import summarize
from ._views import display_text, output_of

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d232b;background:#fafbfc}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;background:#fff}td,th{border:1px solid #d8dde3;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef1f4;cursor:default}th.sort{cursor:pointer}td.num{text-align:right;font-variant-numeric:tabular-nums}
.hists{display:flex;flex-wrap:wrap;gap:16px}.hist{background:#fff;border:1px solid #d8dde3;padding:8px}
.controls{margin:8px 0;display:flex;gap:12px;flex-wrap:wrap;align-items:center}
tr.item-row{cursor:pointer}tr.item-row:hover{background:#f0f6ff}
.scored{color:#176c2f}.skipped{color:#8a6d00}.error{color:#b00020}
#view{background:#fff;border:1px solid #d8dde3;padding:12px;margin-top:16px}
.chunk{border-left:4px solid #c8ced6;padding:4px 8px;margin:6px 0;background:#f7f8fa;white-space:pre-wrap}
.chunk.yes{border-color:#2e9d4d}.chunk.no{border-color:#d04a4a}
.claim.yes::before{content:"✔ ";color:#2e9d4d}.claim.no::before{content:"✘ ";color:#d04a4a}
pre{white-space:pre-wrap;background:#f3f4f6;padding:6px;max-height:320px;overflow:auto}
.muted{color:#667}
"""

_JS = r"""
window.addEventListener('error', e => { document.body.dataset.errors = (document.body.dataset.errors || '') + e.message + ';'; });
const DATA = JSON.parse(document.getElementById('report-data').textContent);
const PAGE = 100;
let state = {scorer: DATA.scorers[0] || '', status: '', min: '', max: '', text: '', sort: 'id', desc: false, page: 0};
const esc = s => String(s ?? '').replace(/[&<>"']/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));
function fmt(v) { return v === null || v === undefined ? '–' : Number(v).toFixed(3); }
function rowsFiltered() {
  const sid = state.scorer;
  let rows = DATA.items.filter(it => {
    const s = it.scores[sid];
    const status = s ? s.status : (it.error ? 'error' : 'missing');
    if (state.status && status !== state.status) return false;
    if (state.min !== '' && !(s && s.status === 'scored' && s.score >= Number(state.min))) return false;
    if (state.max !== '' && !(s && s.status === 'scored' && s.score <= Number(state.max))) return false;
    if (state.text && !(it.id + ' ' + it.input).toLowerCase().includes(state.text.toLowerCase())) return false;
    return true;
  });
  const key = it => state.sort === 'id' ? it.id : state.sort === 'score' ? (it.scores[sid] && it.scores[sid].status === 'scored' ? it.scores[sid].score : -1) : (it.scores[sid] ? it.scores[sid].status : 'error');
  rows.sort((a, b) => { const x = key(a), y = key(b); return (x < y ? -1 : x > y ? 1 : 0) * (state.desc ? -1 : 1); });
  return rows;
}
function drawTable() {
  const rows = rowsFiltered();
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  state.page = Math.min(state.page, pages - 1);
  const shown = rows.slice(state.page * PAGE, (state.page + 1) * PAGE);
  const sid = state.scorer;
  document.getElementById('items-body').innerHTML = shown.map(it => {
    const s = it.scores[sid];
    const status = s ? s.status : (it.error ? 'error' : 'missing');
    const reason = s ? (s.error || s.reason) : (it.error ? it.error.message : '');
    return `<tr class="item-row" data-id="${esc(it.id)}"><td>${esc(it.id)}</td><td>${esc(String(it.input).slice(0, 120))}</td>` +
      `<td class="num">${s && s.status === 'scored' ? fmt(s.score) : '–'}</td><td class="${status}">${status}</td><td>${esc(String(reason).slice(0, 160))}</td></tr>`;
  }).join('');
  document.getElementById('page-info').textContent = `${rows.length} items · page ${state.page + 1} of ${pages}`;
  for (const tr of document.querySelectorAll('tr.item-row')) tr.onclick = () => showItem(tr.dataset.id);
}
function verdictMap(details, field) {
  const v = details && details.verdicts && details.verdicts.verdicts;
  const out = {};
  if (Array.isArray(v)) for (const x of v) if (x[field] !== undefined) out[x[field]] = x;
  return out;
}
function showItem(id) {
  const it = DATA.items.find(x => x.id === id);
  if (!it) return;
  let h = `<h2>Item ${esc(it.id)}</h2>`;
  h += `<p><b>Question</b><br>${esc(it.input)}</p><p><b>Ground truth</b><br>${esc(it.ground_truth ?? '–')}</p><p><b>Output</b><br>${esc(it.output ?? '–')}</p>`;
  if (it.error) h += `<p class="error"><b>Error (${esc(it.error.phase)})</b>: ${esc(it.error.message)}</p>`;
  for (const [sid, s] of Object.entries(it.scores)) {
    h += `<h3>${esc(sid)}: ${s.status === 'scored' ? fmt(s.score) : esc(s.status)}</h3><pre>${esc(s.error || s.reason)}</pre>`;
    const d = s.details || {};
    const claims = (d.claims_used && d.claims_used.claims) || (d.claims && d.claims.claims);
    if (Array.isArray(claims)) {
      const byClaim = verdictMap(d, 'claim_index');
      h += '<p><b>Claims</b></p><ul>' + claims.map((c, i) => {
        const v = byClaim[i]; const mark = v ? (v.verdict === 'yes' ? 'yes' : 'no') : '';
        return `<li class="claim ${mark}">${esc(c)} <span class="muted">${v ? (v.verdict === 'yes' ? 'supported' : 'missing') + ' — ' + esc(v.reason) : ''}</span></li>`;
      }).join('') + '</ul>';
    }
    const byChunk = verdictMap(d, 'context_index');
    const matched = d.similarities && d.similarities.matched;
    const perChunk = Object.keys(byChunk).length > 0 || (Array.isArray(matched) && d.similarities.best_per_chunk);
    if (perChunk) {
      h += '<p><b>Retrieved chunks, in rank order</b></p>' + (it.context || []).map((c, k) => {
        const v = byChunk[k]; let mark = '', note = '';
        if (v) { mark = v.verdict === 'yes' ? 'yes' : 'no'; note = (v.verdict === 'yes' ? 'useful' : 'not useful') + ' — ' + v.reason; }
        else if (Array.isArray(matched) && k < matched.length) { mark = matched[k] ? 'yes' : 'no'; note = 'best similarity ' + fmt(d.similarities.best_per_chunk[k]); }
        return `<div class="chunk ${mark}"><span class="muted">#${k + 1}${c.id ? ' · ' + esc(c.id) : ''} ${esc(note)}</span>\n${esc(c.text)}</div>`;
      }).join('');
    }
    if (s.calls && s.calls.length) {
      h += '<details><summary>' + s.calls.length + ' judge call(s): prompts and raw responses</summary>' + s.calls.map(c =>
        `<p class="muted">${esc(c.step)} · ${c.cached ? 'cached' : c.attempts + ' attempt(s)'}${c.error ? ' · ' + esc(c.error) : ''}</p><pre>${esc(c.prompt)}</pre><pre>${esc(c.response)}</pre>`).join('') + '</details>';
    }
  }
  if (!Object.keys(it.scores).length && it.context) h += '<p><b>Retrieved chunks</b></p>' + it.context.map((c, k) => `<div class="chunk">#${k + 1} ${esc(c.text)}</div>`).join('');
  document.getElementById('view').innerHTML = h;
  document.getElementById('view').scrollIntoView();
}
function bind() {
  const sel = document.getElementById('f-scorer');
  sel.innerHTML = DATA.scorers.map(s => `<option>${esc(s)}</option>`).join('');
  sel.onchange = e => { state.scorer = e.target.value; state.page = 0; drawTable(); };
  document.getElementById('f-status').onchange = e => { state.status = e.target.value; state.page = 0; drawTable(); };
  document.getElementById('f-min').oninput = e => { state.min = e.target.value; state.page = 0; drawTable(); };
  document.getElementById('f-max').oninput = e => { state.max = e.target.value; state.page = 0; drawTable(); };
  document.getElementById('f-text').oninput = e => { state.text = e.target.value; state.page = 0; drawTable(); };
  document.getElementById('prev').onclick = () => { state.page = Math.max(0, state.page - 1); drawTable(); };
  document.getElementById('next').onclick = () => { state.page += 1; drawTable(); };
  for (const th of document.querySelectorAll('th.sort')) th.onclick = () => {
    state.desc = state.sort === th.dataset.key ? !state.desc : false; state.sort = th.dataset.key; drawTable();
  };
  for (const a of document.querySelectorAll('a.item-link')) a.onclick = e => { e.preventDefault(); showItem(a.dataset.id); };
}
bind(); drawTable();
if (location.hash.startsWith('#item=')) showItem(decodeURIComponent(location.hash.slice(6)));
document.body.dataset.ready = 'yes';
"""


def _item_data(item: ItemResult, prompts: bool) -> dict[str, Any]:
    context = item.item.context
    if item.target_result is not None and item.target_result.context is not None:
        context = item.target_result.context
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
            "status": result.status,
            "reason": result.reason,
            "error": result.error,
            "details": details,
            "calls": calls,
        }
    return {
        "id": item.item.id,
        "input": display_text(item.item.input) or "",
        "ground_truth": item.item.ground_truth,
        "output": display_text(output_of(item)),
        "context": None if context is None else [{"id": c.id, "text": c.text} for c in context],
        "error": None if item.error is None else item.error.model_dump(),
        "scores": scores,
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
            if before is not None and before.status == new.status == "scored":
                changes.append(
                    (abs(new.score - before.score), sid, item.item.id, before.score, new.score)
                )
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


def render_report(
    items: Sequence[ItemResult],
    *,
    summary: RunSummary | None = None,
    baseline: Sequence[ItemResult] | None = None,
    scales: dict[str, float] | None = None,
    title: str = "scorekit report",
    prompts: bool = True,
) -> str:
    """The report of ``items`` (and, with ``baseline``, the comparison) as one HTML page."""
    scorer_ids = list(dict.fromkeys(sid for item in items for sid in item.scorer_results))
    if summary is None:
        summary = summarize(items, scorer_ids, 0.0)
    scales = scales or {}
    hists = []
    for sid in summary.scorers:
        values = [
            r.scorer_results[sid].score
            for r in items
            if sid in r.scorer_results and r.scorer_results[sid].status == "scored"
        ]
        scale = scales.get(sid) or max([1.0, *values])
        hists.append(
            f"<div class='hist'><b>{html.escape(sid)}</b> <span class='muted'>({len(values)} "
            f"scored)</span><br>{_histogram(values, scale)}</div>"
        )
    data = {"scorers": list(summary.scorers), "items": [_item_data(i, prompts) for i in items]}
    payload = json.dumps(data, default=json_fallback, ensure_ascii=False).translate(_JSON_IN_HTML)
    comparison = ""
    if baseline is not None:
        comparison = _comparison(compare_items(baseline, items, resamples=2000), baseline, items)
    return (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{html.escape(title)}</h1><h2>Summary</h2>{summary_html(summary)}"
        f"<h2>Score distributions</h2><div class='hists'>{''.join(hists)}</div>{comparison}"
        "<h2>Items</h2><div class='controls'>scorer <select id='f-scorer'></select>"
        "status <select id='f-status'><option value=''>any</option><option>scored</option>"
        "<option>skipped</option><option>error</option></select>"
        "score ≥ <input id='f-min' size='4'> ≤ <input id='f-max' size='4'>"
        "search <input id='f-text' size='16'>"
        "<button id='prev'>‹</button><span id='page-info'></span><button id='next'>›</button></div>"
        "<table id='items'><thead><tr><th class='sort' data-key='id'>id</th><th>input</th>"
        "<th class='sort' data-key='score'>score</th><th class='sort' data-key='status'>status</th>"
        "<th>reason</th></tr></thead><tbody id='items-body'></tbody></table>"
        "<div id='view'><p class='muted'>Click an item to see its question, chunks, claims, "
        "verdicts, prompts and errors.</p></div>"
        f"<script type='application/json' id='report-data'>{payload}</script>"
        f"<script>{_JS}</script></body></html>"
    )


_JSON_IN_HTML = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)
"""JSON escapes for the characters that could end or alter the page's data block
(``</script>``, ``<!--``) or a script reading it; ``JSON.parse`` restores them."""


def write_report(path: str | os.PathLike[str], html_text: str) -> Path:
    """Write the report (all at once: an existing file is replaced only by a whole
    page); returns the path."""
    return write_atomically(Path(path), html_text.encode("utf-8"))
