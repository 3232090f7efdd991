window.addEventListener('error', e => { document.body.dataset.errors = (document.body.dataset.errors || '') + e.message + ';'; });
const DATA = JSON.parse(document.getElementById('report-data').textContent);
const PAGE = 100;
const SCORERS = DATA.scorers;
const FILTERS = ['scorer', 'slice', 'status', 'change', 'min', 'max', 'q', 'sort', 'desc'];
let state = {scorer: '', slice: '', status: '', change: '', min: '', max: '', q: '', sort: 'id', desc: '', page: 0, item: ''};
const esc = s => String(s ?? '').replace(/[&<>"']/g, c => ({'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c]));
const NATURAL = new Intl.Collator(undefined, {numeric: true});  // ids 2 before 10
const fmt = v => v === null || v === undefined ? '–' : Number(v).toFixed(3);
const byId = new Map(DATA.items.map(it => [it.id, it]));
const base = new Map((DATA.baseline || []).map(it => [it.id, it]));

function statusOf(it, sid) { const s = it.scores[sid]; return s ? s.status : (it.error ? 'error' : 'missing'); }
function scoreOf(it, sid) { const s = it && it.scores[sid]; return s && s.score !== null && s.score !== undefined && ['passed', 'failed', 'scored'].includes(s.status) ? s.score : null; }
function delta(it, sid) { const a = scoreOf(it, sid), b = scoreOf(base.get(it.id), sid); return a === null || b === null ? null : a - b; }
function band(v, sid) {
  if (v === null) return '';
  const r = v / (DATA.scales[sid] || 1);
  return r >= 0.8 ? 'band-hi' : r >= 0.5 ? 'band-mid' : 'band-lo';
}
function haystack(it) {
  if (it._hay === undefined) {
    const reasons = Object.values(it.scores).map(s => (s.reason || '') + ' ' + (s.error || '')).join(' ');
    it._hay = [it.id, it.input, it.ground_truth, it.output, reasons, JSON.stringify(it.metadata || {})].join(' ').toLowerCase();
  }
  return it._hay;
}
const BAD = ['failed', 'error'];
function changed(it, sid, kind) {  // against the baseline: regressed, improved, new failure
  const old = base.get(it.id);
  if (!old) return kind === 'new-failures' && BAD.includes(statusOf(it, sid));
  if (kind === 'new-failures') return BAD.includes(statusOf(it, sid)) && !BAD.includes(statusOf(old, sid));
  const d = delta(it, sid);
  return d !== null && (kind === 'regressed' ? d < 0 : d > 0);
}
function exportText(kind) {  // the filtered rows, as the table shows them
  const rows = rowsFiltered().map(it => {
    const row = {id: it.id, input: it.input};
    for (const sid of SCORERS) { row[sid] = scoreOf(it, sid); row[sid + ' status'] = statusOf(it, sid); if (DATA.baseline) row['delta ' + sid] = delta(it, sid); }
    return row;
  });
  if (kind === 'json') return JSON.stringify(rows, null, 2);
  const cols = rows.length ? Object.keys(rows[0]) : ['id'];
  // text that a spreadsheet would run as a formula gets a leading ' (OWASP's CSV injection rule); numbers stay numbers
  const cell = v => {
    let t = v === null || v === undefined ? '' : String(v);
    if (typeof v === 'string' && /^[=+\-@\t\r]/.test(t)) t = "'" + t;
    return /[",\n\r]/.test(t) ? '"' + t.replace(/"/g, '""') + '"' : t;
  };
  return [cols.map(cell).join(','), ...rows.map(r => cols.map(c => cell(r[c])).join(','))].join('\n') + '\n';
}
function download(kind) {
  const blob = new Blob([exportText(kind)], {type: kind === 'json' ? 'application/json' : 'text/csv'});
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob); a.download = 'scorekit-items.' + kind; a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
const SLICES = new Map();  // a group's link (the Python side's name of it) -> the ids of its items
for (const s of DATA.slices || []) for (const g of s.groups) SLICES.set(g.link, new Set(g.items.map(i => DATA.items[i].id)));
function rowsFiltered() {
  const sids = state.scorer ? [state.scorer] : SCORERS;
  const text = state.q.toLowerCase();
  const members = state.slice ? (SLICES.get(state.slice) || new Set()) : null;
  let rows = DATA.items.filter(it => {
    if (members && !members.has(it.id)) return false;
    if (state.change && !sids.some(sid => changed(it, sid, state.change))) return false;
    if (state.status && !sids.some(sid => statusOf(it, sid) === state.status)) return false;
    const inRange = v => v !== null && (state.min === '' || v >= Number(state.min)) && (state.max === '' || v <= Number(state.max));
    if ((state.min !== '' || state.max !== '') && !sids.some(sid => inRange(scoreOf(it, sid)))) return false;
    if (text && !haystack(it).includes(text)) return false;
    return true;
  });
  const [kind, sid] = state.sort.includes(':') ? state.sort.split(/:(.*)/s) : [state.sort, ''];
  const key = it => kind === 'id' ? it.id : kind === 's' ? (scoreOf(it, sid) ?? -Infinity) : kind === 'd' ? (delta(it, sid) ?? -Infinity) : statusOf(it, sid);
  const order = kind === 'id' ? (x, y) => NATURAL.compare(x, y) : (x, y) => (x < y ? -1 : x > y ? 1 : 0);
  rows.sort((a, b) => order(key(a), key(b)) * (state.desc ? -1 : 1));
  return rows;
}
function drawHead() {
  let h = '<th class="sort" data-key="id">id</th><th>input</th>';
  for (const sid of SCORERS) {
    h += `<th class="sort" data-key="s:${esc(sid)}">${esc(sid)}</th>`;
    if (DATA.baseline) h += `<th class="sort" data-key="d:${esc(sid)}" title="change from the baseline">Δ ${esc(sid)}</th>`;
  }
  document.getElementById('items-head').innerHTML = '<tr>' + h + '</tr>';
  for (const th of document.querySelectorAll('th.sort')) th.onclick = () => {
    state.desc = state.sort === th.dataset.key && !state.desc ? '1' : '';
    state.sort = th.dataset.key; state.page = 0; saveHash(); drawTable();
  };
}
function cell(it, sid) {
  const st = statusOf(it, sid), v = scoreOf(it, sid);
  return `<td class="score ${band(v, sid)}" data-scorer="${esc(sid)}">${v === null ? '–' : fmt(v)} <span class="badge st-${st}">${st}</span></td>`;
}
function drawTable() {
  const rows = rowsFiltered();
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  state.page = Math.min(state.page, pages - 1);
  const shown = rows.slice(state.page * PAGE, (state.page + 1) * PAGE);
  document.getElementById('items-body').innerHTML = shown.map(it => {
    let cells = `<td>${esc(it.id)}</td><td>${esc(String(it.input).slice(0, 100))}</td>`;
    for (const sid of SCORERS) {
      cells += cell(it, sid);
      if (DATA.baseline) { const d = delta(it, sid); cells += `<td class="num ${d > 0 ? 'delta-up' : d < 0 ? 'delta-down' : ''}">${d === null ? '–' : (d > 0 ? '+' : '') + d.toFixed(3)}</td>`; }
    }
    return `<tr class="item-row${it.id === state.item ? ' current' : ''}" data-id="${esc(it.id)}">${cells}</tr>`;
  }).join('');
  document.getElementById('page-info').textContent = `${rows.length} items · page ${state.page + 1} of ${pages}`;
  for (const tr of document.querySelectorAll('tr.item-row')) tr.onclick = () => openItem(tr.dataset.id);
}
function verdictMap(details, field) {
  const v = details && details.verdicts && details.verdicts.verdicts;
  const out = {};
  if (Array.isArray(v)) for (const x of v) if (x[field] !== undefined) out[x[field]] = x;
  return out;
}
function isGold(it, c) {
  return (c.id !== null && c.id !== undefined && (it.gold_ids || []).includes(String(c.id))) || (it.gold_texts || []).includes(c.text);
}
function renderScore(it, sid, s, label) {
  if (!s) return `<p class="muted">${esc(label)}: not scored</p>`;
  let h = `<p><b>${esc(label)}</b>: ${['passed', 'failed', 'scored'].includes(s.status) ? fmt(s.score) : ''} <span class="badge st-${s.status}">${s.status}</span></p><pre>${esc(s.error || s.reason)}</pre>`;
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
  if (perChunk && it.context) {
    h += '<p><b>Retrieved chunks, in rank order</b></p>' + it.context.map((c, k) => {
      const v = byChunk[k]; let mark = '', note = '';
      if (v && v.relevance) {  // context relevance: the level, and use when asked
        mark = { high: 'yes', medium: 'yes', low: 'no', none: 'no' }[v.relevance];
        note = 'relevance ' + v.relevance + (v.used === true ? ', used' : v.used === false ? ', not used' : '') + ' — ' + v.reason;
      } else if (v) { mark = v.verdict === 'yes' ? 'yes' : 'no'; note = (v.verdict === 'yes' ? 'useful' : 'not useful') + ' — ' + v.reason; }
      else if (Array.isArray(matched) && k < matched.length) { mark = matched[k] ? 'yes' : 'no'; note = 'best similarity ' + fmt(d.similarities.best_per_chunk[k]); }
      const gold = isGold(it, c) ? ' <span class="badge gold">gold</span>' : '';
      return `<div class="chunk ${mark}"><span class="muted">#${k + 1}${c.id ? ' · ' + esc(c.id) : ''} ${esc(note)}</span>${gold}\n${esc(c.text)}</div>`;
    }).join('');
    const missing = d.verdicts && d.verdicts.missing;
    if (Array.isArray(missing) && missing.length) h += '<p><b>Missing from every chunk</b></p><ul>' + missing.map(m => `<li>${esc(m)}</li>`).join('') + '</ul>';
  }
  if (s.calls && s.calls.length) {
    h += '<details><summary>' + s.calls.length + ' judge call(s): prompts and raw responses</summary>' + s.calls.map(c =>
      `<p class="muted">${esc(c.step)} · ${c.cached ? 'cached' : c.attempts + ' attempt(s)'}${c.error ? ' · ' + esc(c.error) : ''}</p><pre>${esc(c.prompt)}</pre><pre>${esc(c.response)}</pre>`).join('') + '</details>';
  }
  return h;
}
const chunkKey = c => c.id !== null && c.id !== undefined ? 'id:' + c.id : 'text:' + c.text;
function chunkList(it, chunks, other, label) {  // a ranking, its gold chunks' moves against the other
  const rankIn = new Map(other.map((c, k) => [chunkKey(c), k + 1]));
  const mine = new Set(chunks.map(chunkKey));
  let h = `<p class="muted">${esc(label)}: ${chunks.length} chunks</p>`;
  h += chunks.map((c, k) => {
    let note = '';
    if (isGold(it, c)) {
      const was = rankIn.get(chunkKey(c));
      note = ' <span class="badge gold">gold</span>';
      if (label === 'this run') note += was === undefined ? ' <span class="badge moved">new</span>' : was > k + 1 ? ` <span class="badge moved">up from #${was}</span>` : was < k + 1 ? ` <span class="badge moved">down from #${was}</span>` : '';
      else if (!rankIn.has(chunkKey(c))) note += ' <span class="badge dropped">dropped in this run</span>';
    }
    return `<div class="chunk${!rankIn.has(chunkKey(c)) && label !== 'this run' && isGold(it, c) ? ' dropped' : ''}"><span class="muted">#${k + 1}${c.id ? ' · ' + esc(c.id) : ''}</span>${note}\n${esc(c.text)}</div>`;
  }).join('');
  return h;
}
function showItem(id) {
  const it = byId.get(id);
  const view = document.getElementById('view');
  if (!it) { view.innerHTML = id ? `<p class="error">No item ${esc(id)} in this report.</p>` : ''; return; }
  const old = base.get(id);
  let h = `<h2>Item ${esc(it.id)}</h2>`;
  h += `<p><b>Question</b><br>${esc(it.input)}</p><p><b>Ground truth</b><br>${esc(it.ground_truth ?? '–')}</p><p><b>Output</b><br>${it.output === null && it.no_answer ? '<span class="muted">no answer returned (the target returned its retrieval only)</span>' : esc(it.output ?? '–')}</p>`;
  if (it.metadata && Object.keys(it.metadata).length) h += '<p><b>Metadata</b></p><table class="meta">' + Object.entries(it.metadata).map(([k, v]) => `<tr><td>${esc(k)}</td><td>${esc(typeof v === 'string' ? v : JSON.stringify(v))}</td></tr>`).join('') + '</table>';
  if (it.gold_ids && it.gold_ids.length) h += `<p><b>Gold chunk ids</b>: ${it.gold_ids.map(esc).join(', ')}</p>`;
  if (it.error) h += `<p class="error"><b>Error (${esc(it.error.phase)})</b>: ${esc(it.error.message)}</p>`;
  if (it.retrieval_failed) h += '<p class="muted">The retrieval failed: no chunks were retrieved for this item.</p>';
  else if (old && old.context && it.context) h += `<details open><summary><b>Retrieved chunks</b>: this run beside the baseline (gold marked; moved and dropped gold too)</summary><div class="pair"><div>${chunkList(it, it.context, old.context, 'this run')}</div><div>${chunkList(it, old.context, it.context, 'baseline')}</div></div></details>`;
  else if (it.context && it.context.length) h += `<details open><summary><b>Retrieved chunks</b> (${it.context.length}, in rank order; gold marked)</summary>` + it.context.map((c, k) =>
    `<div class="chunk"><span class="muted">#${k + 1}${c.id ? ' · ' + esc(c.id) : ''}</span>${isGold(it, c) ? ' <span class="badge gold">gold</span>' : ''}\n${esc(c.text)}</div>`).join('') + '</details>';
  for (const sid of SCORERS) {
    const s = it.scores[sid];
    if (!s && !(old && old.scores[sid])) continue;
    h += `<h3>${esc(sid)}</h3>`;
    if (old) h += `<div class="pair"><div>${renderScore(it, sid, s, 'this run')}</div><div>${renderScore(old, sid, old.scores[sid], 'baseline')}</div></div>`;
    else h += renderScore(it, sid, s, 'score');
  }
  view.innerHTML = h;
  view.scrollIntoView();
}
function saveHash() {
  const p = new URLSearchParams();
  for (const k of FILTERS) if (state[k] && !(k === 'sort' && state[k] === 'id')) p.set(k, state[k]);
  if (state.item) p.set('item', state.item);
  const text = p.toString();
  history.replaceState(null, '', text ? '#' + text : location.pathname + location.search);
}
function openItem(id) { state.item = id; saveHash(); showItem(id); drawTable(); }
function loadHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  for (const k of FILTERS) state[k] = p.get(k) || (k === 'sort' ? 'id' : '');
  state.item = p.get('item') || '';
  state.page = 0;
  for (const [k, el] of Object.entries({scorer: 'f-scorer', slice: 'f-slice', status: 'f-status', change: 'f-change', min: 'f-min', max: 'f-max', q: 'f-text'})) document.getElementById(el).value = state[k];
  drawTable();
  showItem(state.item);
}
function bind() {
  const sel = document.getElementById('f-scorer');
  sel.innerHTML = '<option value="">any</option>' + SCORERS.map(s => `<option value="${esc(s)}">${esc(s)}</option>`).join('');
  const on = (id, key, ev) => { document.getElementById(id)[ev] = e => { state[key] = e.target.value; state.page = 0; saveHash(); drawTable(); }; };
  const slices = document.getElementById('f-slice');
  slices.innerHTML = '<option value="">any</option>' + (DATA.slices || []).flatMap(s => s.groups.map(g => `<option value="${esc(g.link)}">${esc(s.key + ' = ' + g.label)}</option>`)).join('');
  for (const a of document.querySelectorAll('a.slice-link')) a.onclick = e => { e.preventDefault(); state.slice = a.dataset.slice; state.page = 0; slices.value = state.slice; saveHash(); drawTable(); };
  on('f-scorer', 'scorer', 'onchange'); on('f-slice', 'slice', 'onchange'); on('f-status', 'status', 'onchange');
  on('f-change', 'change', 'onchange');
  document.getElementById('export-csv').onclick = () => download('csv');
  document.getElementById('export-json').onclick = () => download('json');
  on('f-min', 'min', 'oninput'); on('f-max', 'max', 'oninput'); on('f-text', 'q', 'oninput');
  document.getElementById('prev').onclick = () => { state.page = Math.max(0, state.page - 1); drawTable(); };
  document.getElementById('next').onclick = () => { state.page += 1; drawTable(); };
  for (const a of document.querySelectorAll('a.item-link')) a.onclick = e => { e.preventDefault(); openItem(a.dataset.id); };
  window.addEventListener('hashchange', loadHash);
}
drawHead(); bind(); loadHash();
document.body.dataset.ready = 'yes';
