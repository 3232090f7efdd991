"use strict";
// scorekit view: every string from the data is written with textContent, never as markup.
// The one exception is the comparison's tables, which the server renders with escaping.
(function () {
  const TOKEN = document.querySelector("meta[name=scorekit-token]").content;
  const LEVELS = ["none", "low", "medium", "high"];  // a relevance verdict's grades 0-3
  const main = document.getElementById("main");
  const status = document.getElementById("status");
  let poller = null;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const fmt = (v, d = 3) => (v === null || v === undefined ? "-" : Number(v).toFixed(d));
  const ci = (lo, hi) => (lo === null || lo === undefined ? "" : `[${fmt(lo)}, ${fmt(hi)}]`);
  const link = (hash, text) => el("a", { href: "#" + hash }, text);
  const enc = encodeURIComponent;

  async function api(path, body) {
    const options = { headers: { "X-Scorekit-Token": TOKEN } };
    if (body !== undefined) {
      options.method = "POST";
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    const response = await fetch(path, options);
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || response.statusText);
    return data;
  }
  // GET path unless it is what `etag` names: { etag, data }, or null when unchanged
  async function changed(path, etag) {
    const headers = { "X-Scorekit-Token": TOKEN };
    if (etag) headers["If-None-Match"] = etag;
    const response = await fetch(path, { headers, cache: "no-store" });
    if (response.status === 304) return null;
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || response.statusText);
    return { etag: response.headers.get("ETag"), data };
  }

  // a part with nothing to show (null, undefined, false, "") leaves no text, never "null"
  function fill(node, ...children) {
    node.replaceChildren(...children.flat().filter((n) => n !== null && n !== undefined && n !== false && n !== ""));
  }
  function show(...nodes) { fill(main, ...nodes); }
  function failed(error) {
    show(el("p", { class: "error", text: String(error.message || error) }));
  }

  // ---- runs, trend, compare selection ----
  function runRow(run, selected) {
    const h = run.header || {};
    const scorers = Object.entries(run.summary.scorers || {});
    const box = el("input", { type: "checkbox", "data-path": run.path, checked: selected.has(run.path) });
    box.addEventListener("change", () => (box.checked ? selected.add(run.path) : selected.delete(run.path)));
    return el("tr", { "data-run": run.path },
      el("td", {}, box),
      el("td", { text: (h.created || "").replace("T", " ").replace("+00:00", "") }),
      el("td", {}, link("/run/" + enc(run.path), run.path)),
      el("td", { class: "muted", text: (h.git_commit || "").slice(0, 10) }),
      el("td", { text: judges(h).join(", ") || "-" }),
      el("td", {}, scorers.map(([sid, s]) =>
        el("div", {}, el("b", { text: sid }), ` ${fmt(s.mean)} `, el("span", { class: "muted", text: ci(s.ci_low, s.ci_high) })))),
      el("td", { class: "num", text: run.items }),
      el("td", { class: "num", text: run.summary.item_errors })
    );
  }
  function judges(h) {
    const found = new Set();
    for (const d of Object.values(h.scorers || {})) if (d.judge && d.judge.model) found.add(d.judge.model);
    return [...found];
  }

  const MANY_POINTS = 150;  // past it, a chart's points and intervals are drawn as one path each
  function trend(runs, only) {
    const series = new Map();
    runs.forEach((run, i) => {
      const scales = run.header ? run.header.scorers || {} : {};
      for (const [sid, s] of Object.entries(run.summary.scorers || {})) {
        if (s.mean === null || (only && sid !== only)) continue;
        if (!series.has(sid)) series.set(sid, []);
        series.get(sid).push({ i, run, s, scale: (scales[sid] || {}).scale || 1 });
      }
    });
    const W = Math.min(1100, Math.max(340, 60 + 3 * runs.length)), H = 150, L = 40, R = 12, T = 22, B = 30, n = Math.max(runs.length - 1, 1);
    const dot = runs.length > 80 ? 2 : 3.5;  // hundreds of runs stay apart
    const day = (run) => ((run.header || {}).created || "").slice(0, 10);
    const charts = [];
    for (const [sid, points] of series) {
      const scale = Math.max(...points.map((p) => p.scale));
      const x = (i) => L + ((W - L - R) * i) / n;
      const y = (v) => H - B - ((H - T - B) * Math.min(Math.max(v, 0), scale)) / scale;
      const ns = "http://www.w3.org/2000/svg";
      const svg = document.createElementNS(ns, "svg");
      svg.setAttribute("width", W); svg.setAttribute("height", H);
      svg.setAttribute("data-scorer", sid);
      const add = (tag, attrs, text) => {
        const node = document.createElementNS(ns, tag);
        for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
        if (text !== undefined) node.textContent = text;
        svg.append(node);
        return node;
      };
      // the y axis: the mean's scale, ticks at 0, half and full
      add("line", { x1: L, x2: L, y1: y(0), y2: y(scale), stroke: "#8c959f" });
      for (const v of [0, scale / 2, scale]) {
        add("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: v === 0 ? "#8c959f" : "#eef1f4" });
        add("text", { x: L - 4, y: y(v) + 4, "font-size": 10, "text-anchor": "end", class: "tick y" }, String(+v.toFixed(2)));
      }
      // the x axis: runs in time order, the first and last run's dates
      const first = points[0].run, last = points[points.length - 1].run;
      add("text", { x: L, y: H - 8, "font-size": 10, class: "tick x" }, day(first) || "first run");
      if (points.length > 1) add("text", { x: W - R, y: H - 8, "font-size": 10, "text-anchor": "end", class: "tick x" }, day(last) || "last run");
      add("polyline", { points: points.map((p) => `${x(p.i)},${y(p.s.mean)}`).join(" "), fill: "none", stroke: "#0969da" });
      const said = (p) => `${p.run.path} (${day(p.run) || "no date"}): mean ${fmt(p.s.mean)} ${ci(p.s.ci_low, p.s.ci_high)}`;
      const ranged = points.filter((p) => p.s.ci_low !== null && p.s.ci_low !== undefined);
      if (points.length > MANY_POINTS) {  // hundreds of runs: one path each, a tip on hover
        add("path", { d: ranged.map((p) => `M${x(p.i)} ${y(p.s.ci_low)}V${y(p.s.ci_high)}`).join(""), stroke: "#6ea8e8", "stroke-width": 2, class: "intervals" });
        add("path", { d: points.map((p) => `M${x(p.i)} ${y(p.s.mean)}h0.01`).join(""), stroke: "#0969da", "stroke-width": 4, "stroke-linecap": "round", class: "points" });
        const tip = add("text", { x: L + 4, y: T + 10, "font-size": 10, class: "tip" }, "");
        svg.addEventListener("mousemove", (e) => {
          const at = (e.offsetX - L) / (W - L - R) * n;
          const near = points.reduce((best, p) => (Math.abs(p.i - at) < Math.abs(best.i - at) ? p : best));
          tip.textContent = said(near);
        });
        svg.addEventListener("mouseleave", () => { tip.textContent = ""; });
      } else {
        for (const p of ranged) add("line", { x1: x(p.i), x2: x(p.i), y1: y(p.s.ci_low), y2: y(p.s.ci_high), stroke: "#6ea8e8", "stroke-width": 3, class: "interval" });
        for (const p of points) {
          const point = add("circle", { cx: x(p.i), cy: y(p.s.mean), r: dot, fill: "#0969da", class: "point" });
          const title = document.createElementNS(ns, "title");
          title.textContent = said(p);
          point.append(title);
        }
      }
      add("text", { x: 4, y: 13, "font-size": 12, class: "title" }, `${sid}: mean per run, 95% interval`);
      charts.push(el("div", { class: "trend" }, svg));
    }
    return charts;
  }

  // runs chosen by text (file, commit, judge, scorer), scorer and judge, in the order asked
  const RUNS_SHOWN = 100;
  function chooseRuns(runs, want) {
    const q = (want.q || "").toLowerCase();
    const chosen = runs.filter((run) => {
      const h = run.header || {};
      const sids = Object.keys(run.summary.scorers || {});
      if (want.scorer && !sids.includes(want.scorer)) return false;
      if (want.judge && !judges(h).includes(want.judge)) return false;
      return !q || [run.path, h.git_commit || "", ...judges(h), ...sids].some((t) => t.toLowerCase().includes(q));
    });
    const [by, sid] = (want.sort || "new").split(":");
    const mean = (run) => { const s = (run.summary.scorers || {})[sid]; return s && s.mean !== null && s.mean !== undefined ? s.mean : null; };
    if (by === "mean") {  // runs without that scorer's mean last, whichever the order
      const dir = want.order === "asc" ? 1 : -1;
      chosen.sort((x, y) => (mean(x) === null) - (mean(y) === null) || dir * (mean(x) - mean(y)));
    } else if (by === "new") chosen.reverse();
    return chosen;
  }

  async function home(query) {
    const selected = new Set();
    const want = Object.fromEntries(new URLSearchParams(query || ""));
    let last = "", runs = [], shown = RUNS_SHOWN;
    const search = el("input", { type: "search", id: "run-search", placeholder: "file, commit, judge or scorer", value: want.q || "" });
    const scorerPick = el("select", { id: "run-scorer" });
    const judgePick = el("select", { id: "run-judge" });
    const sortPick = el("select", { id: "run-sort" });
    const count = el("h1", {});
    const notes = el("div", {});
    const trends = el("div", { id: "trends" });
    const body = el("tbody", {});
    const more = el("p", {});
    const sets = el("div", {});
    const labelled = el("p", { class: "muted" });
    function options(select, values, none, current, label = (v) => v) {
      fill(select, el("option", { value: "", text: none }), ...values.map((v) => el("option", { value: v, text: label(v) })));
      select.value = values.includes(current) ? current : "";
    }
    function remember() {  // the choices are in the address, so a view can be shared
      for (const [k, v] of [["q", search.value.trim()], ["scorer", scorerPick.value], ["judge", judgePick.value], ["sort", sortPick.value]]) {
        if (v && !(k === "sort" && v === "new")) want[k] = v; else delete want[k];
      }
      if (want.sort && want.sort.startsWith("mean:")) { const [, sid, dir] = want.sort.split(":"); want.sort = "mean:" + sid; want.order = dir; } else delete want.order;
      const q = new URLSearchParams(want).toString();
      history.replaceState(null, "", "#/" + (q ? "?" + q : ""));
      shown = RUNS_SHOWN;
      render();
    }
    function render() {
      const chosen = chooseRuns(runs, want);
      count.textContent = chosen.length === runs.length ? `${runs.length} runs` : `${chosen.length} of ${runs.length} runs`;
      const oldest = chosen.slice().sort((x, y) => ((x.header || {}).created || "").localeCompare((y.header || {}).created || "") || x.path.localeCompare(y.path));
      fill(trends, ...trend(oldest, want.scorer));
      fill(body, ...chosen.slice(0, shown).map((r) => runRow(r, selected)));
      fill(more, chosen.length > shown
        ? el("button", { id: "more-runs", onclick: () => { shown += RUNS_SHOWN; render(); } }, `Show ${Math.min(RUNS_SHOWN, chosen.length - shown)} more (${chosen.length - shown} not shown)`)
        : "");
    }
    for (const control of [scorerPick, judgePick, sortPick]) control.addEventListener("change", remember);
    let typing = null;
    search.addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(remember, 150); });
    async function draw() {
      const found = await changed("/api/runs", last);
      if (!found) return;
      last = found.etag;
      const data = found.data;
      runs = data.runs;
      const sids = [...new Set(runs.flatMap((r) => Object.keys(r.summary.scorers || {})))].sort();
      options(scorerPick, sids, "any scorer", want.scorer);
      options(judgePick, [...new Set(runs.flatMap((r) => judges(r.header || {})))].sort(), "any judge", want.judge);
      const sorts = ["new", "old", ...sids.flatMap((sid) => ["mean:" + sid + ":desc", "mean:" + sid + ":asc"])];
      const words = (v) => v === "new" ? "newest first" : v === "old" ? "oldest first" : `mean of ${v.split(":")[1]}, ${v.endsWith("desc") ? "highest" : "lowest"} first`;
      options(sortPick, sorts, "newest first", want.sort ? want.sort + (want.order ? ":" + want.order : want.sort.startsWith("mean:") ? ":desc" : "") : "new", words);
      fill(notes, 
        ...(data.indexing.length ? [el("p", { class: "muted", id: "indexing", text: `Reading ${data.indexing.length} file(s): ${data.indexing.join(", ")}` })] : []),
        ...Object.entries(data.failed).map(([path, why]) => el("p", { class: "error", text: `${path}: ${why}` })));
      fill(sets, data.data_sets.length
        ? el("ul", { id: "data-sets" }, data.data_sets.map((d) => el("li", {}, link("/data_set/" + enc(d.path), d.path), ` (${d.rows} rows)`)))
        : el("p", { class: "muted", text: "None in this folder (scorekit synth writes them)." }));
      labelled.textContent = `${data.labels} verdicts labelled by people in this folder.`;
      render();
    }
    const compare = el("button", { class: "primary", id: "compare", onclick: () => {
      const chosen = runs.filter((r) => selected.has(r.path)).map((r) => r.path);
      if (chosen.length < 2) { alert("Choose two or more runs; the oldest is the baseline."); return; }
      location.hash = "/compare?" + chosen.map((p) => "path=" + enc(p)).join("&");
    } }, "Compare selected");
    show(count, notes,
      el("p", { class: "choices" }, search, " ", scorerPick, " ", judgePick, " sort ", sortPick),
      el("h2", { text: "Means across runs, oldest to newest (95% intervals)" }), trends,
      el("h2", { text: "Runs" }), compare,
      el("table", { id: "runs" },
        el("thead", {}, el("tr", {}, ["", "started (UTC)", "file", "git", "judge", "means [95% CI]", "items", "errors"].map((t) => el("th", { text: t })))),
        body),
      more, el("h2", { text: "Synthesized sets" }), sets, labelled);
    await draw();
    poller = setInterval(() => draw().catch(() => {}), 3000);
  }

  // ---- one run ----
  function agreementBlock(run) {
    if (!run.agreement.length) return null;
    return el("div", { class: "banner", id: "agreement" },
      el("b", { text: "Judge agreement with people" }), " (Cohen's κ and accuracy, 95% bootstrap intervals)",
      el("ul", {}, run.agreement.map((a) => el("li", {}, a.line, " ",
        el("a", { href: `/export?scorer=${enc(a.scorer_id)}&token=${enc(TOKEN)}`, download: `${a.scorer_id}-labels.jsonl`, class: "export" }, "(labels as calibrate rows)")))),
      run.people.length ? el("div", { id: "people" }, el("b", { text: "People with each other" }), " (κ and exact agreement on the questions both decided, 95% bootstrap intervals)",
        el("ul", {}, run.people.map((a) => el("li", { text: a.line })))) : null,
      el("a", { href: "#/review/" + enc(run.path), id: "review-link" }, "Review the judge's verdicts"));
  }

  async function runPage(path, query) {
    const run = await api("/api/run?path=" + enc(path));
    const h = run.header || {};
    const rows = Object.entries(run.summary.scorers).map(([sid, s]) => el("tr", {},
      el("td", { text: sid }), el("td", { class: "num", text: fmt(s.mean) }), el("td", { text: ci(s.ci_low, s.ci_high) }),
      el("td", { class: "num", text: s.n_scored }), el("td", { class: "num", text: s.n_skipped }),
      el("td", { class: "num", text: s.n_error }), el("td", { class: "num", text: fmt(s.detectable) })));
    const items = el("tbody", { id: "items" });
    const pager = el("p", {});
    const asked = new URLSearchParams(query || "").get("item");
    const wanted = asked === null ? NaN : Number(asked);
    // search, filters and order, answered by the server over every item of the run
    const scorerIds = Object.keys(run.summary.scorers || {});
    const search = el("input", { type: "search", id: "item-search", placeholder: "search id or question" });
    const statusPick = el("select", { id: "item-status" }, ["", "scored", "skipped", "error"].map((v) => el("option", { value: v, text: v ? `some scorer ${v}` : "any status" })));
    const sortPick = el("select", { id: "item-sort" },
      [["file", "file order"], ["id", "id"], ["status", "status (failed first)"], ...scorerIds.map((sid) => ["score:" + sid, "score of " + sid])].map(([v, t]) => el("option", { value: v, text: t })));
    const orderPick = el("select", { id: "item-order" }, [["asc", "ascending"], ["desc", "descending"]].map(([v, t]) => el("option", { value: v, text: t })));
    const rangeScorer = el("select", { id: "item-scorer" }, [["", "no score range"], ...scorerIds.map((sid) => [sid, sid])].map(([v, t]) => el("option", { value: v, text: t })));
    const low = el("input", { type: "number", id: "item-min", step: "any", placeholder: "min", size: 5 });
    const high = el("input", { type: "number", id: "item-max", step: "any", placeholder: "max", size: 5 });
    // metadata: a key, then one of its values (picked, or typed when it has many)
    const metaKey = el("select", { id: "item-meta-key" }, el("option", { value: "", text: "any metadata" }));
    const metaPick = el("select", { id: "item-meta-pick", hidden: true });
    const metaText = el("input", { type: "text", id: "item-meta-text", placeholder: "value", hidden: true, size: 10 });
    let metadata = {};
    const facets = () => api(`/api/facets?path=${enc(path)}`).then((found) => {
      metadata = found.metadata;
      metaKey.append(...Object.keys(metadata).map((k) => el("option", { value: k, text: "metadata " + k })));
      metaKey.hidden = !Object.keys(metadata).length;
    }).catch(() => { metaKey.hidden = true; });
    metaKey.addEventListener("change", () => {
      const values = metadata[metaKey.value];
      fill(metaPick, el("option", { value: "", text: "any value" }), ...(values || []).map((v) => el("option", { value: v, text: v })));
      metaPick.hidden = !metaKey.value || values === null;
      metaText.hidden = !metaKey.value || values !== null;
      metaText.value = "";
    });
    const choices = () => {
      const q = new URLSearchParams();
      if (metaKey.value) {
        q.set("meta_key", metaKey.value);
        const value = metaPick.hidden ? metaText.value : metaPick.value;
        if (value) q.set("meta_value", value);
      }
      if (search.value.trim()) q.set("q", search.value.trim());
      if (statusPick.value) q.set("status", statusPick.value);
      if (sortPick.value !== "file" || orderPick.value === "desc") { q.set("sort", sortPick.value); q.set("order", orderPick.value); }
      if (rangeScorer.value) { q.set("scorer", rangeScorer.value); if (low.value) q.set("min", low.value); if (high.value) q.set("max", high.value); }
      return q.toString();
    };
    let typing = null;
    for (const control of [statusPick, sortPick, orderPick, rangeScorer, low, high, metaKey, metaPick, metaText]) control.addEventListener("change", () => page(0).catch(failed));
    search.addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(() => page(0).catch(failed), 200); });
    const controls = el("p", { class: "choices" }, search, " ", statusPick, " ", metaKey, metaPick, metaText, " sort ", sortPick, orderPick, " ", rangeScorer, low, high);
    let latest = 0;  // a slower answer to an earlier choice never replaces a later one
    async function page(start, open) {
      const extra = choices();
      const ticket = ++latest;
      const found = await api(`/api/items?path=${enc(path)}&start=${start}&count=${run.page_size}${extra ? "&" + extra : ""}`);
      if (ticket !== latest) return;
      items.dataset.answered = extra;  // the choices the rows on screen answer
      fill(items, ...found.items.map((it) => {
        const row = el("tr", { class: "item", "data-index": it.index },
          el("td", { text: it.id }), el("td", { text: it.input }),
          el("td", {}, Object.entries(it.scores).map(([sid, s]) => el("div", { title: s.reason }, `${sid}: `, s.status === "scored" ? fmt(s.score) : s.status))),
          el("td", { class: "error", text: it.error || "" }));
        row.addEventListener("click", () => openItem(it.index, row).catch(failed));
        return row;
      }));
      const end = start + found.items.length;
      fill(pager, 
        el("button", { disabled: start === 0, onclick: () => page(Math.max(0, start - run.page_size)) }, "Previous"),
        found.total ? `items ${start + 1}–${end} of ${found.total}${extra ? ` chosen of ${run.items}` : ""} ` : "no item matches ",
        el("button", { disabled: end >= found.total, onclick: () => page(end) }, "Next"));
      const row = open === undefined ? null : items.querySelector(`tr[data-index="${open}"]`);
      if (row) await openItem(open, row);
    }
    // an item opens in place, in a row under its own, and its address is in the URL
    async function openItem(index, row) {
      const shown = document.getElementById("item-detail");
      if (shown) shown.remove();
      if (shown && shown.dataset.index === String(index)) {
        history.replaceState(null, "", "#/run/" + enc(path));
        return;
      }
      const item = await api(`/api/item?path=${enc(path)}&index=${index}`);
      const text = (v) => (typeof v === "string" ? v : JSON.stringify(v));
      const chunks = (item.target_result && item.target_result.context) || item.item.context || [];
      const blocks = Object.entries(item.scorer_results).map(([sid, r]) => el("div", { class: "scorer" },
        el("h3", { text: `${sid}: ${r.status === "scored" ? fmt(r.score) : r.status}` }),
        el("pre", { text: r.reason || r.error || "" }),
        r.details && r.details.verdicts ? el("details", {}, el("summary", { text: "the judge's verdicts" }),
          el("pre", { text: JSON.stringify(r.details.verdicts, null, 1).slice(0, 4000) })) : null));
      const detail = el("tr", { id: "item-detail", "data-index": index }, el("td", { colspan: 4 },
        el("h2", { text: `Item ${item.item.id}` }),
        el("p", { text: text(item.item.input) }),
        chunks.length ? el("ol", { class: "chunks" }, chunks.map((c) => el("li", { text: `${c.id ? c.id + ": " : ""}${text(c.text !== undefined ? c.text : c).slice(0, 500)}` }))) : null,
        ...blocks));
      row.after(detail);
      detail.scrollIntoView({ block: "nearest" });
      history.replaceState(null, "", `#/run/${enc(path)}?item=${index}`);
    }
    const gates = (run.summary && h.thresholds) ? Object.entries(h.thresholds).map(([sid, t]) => {
      const s = run.summary.scorers[sid] || {};
      const ok = s.mean !== null && s.mean !== undefined && s.mean >= t;
      return el("li", { text: `${sid} ≥ ${t}: ${ok ? "passed" : "FAILED"} (mean ${fmt(s.mean)})` });
    }) : [];
    show(
      el("h1", { text: run.path }),
      el("p", { class: "muted", text: [judges(h).length ? "judge " + judges(h).join(", ") : "", h.created || "", h.git_commit ? "git " + h.git_commit.slice(0, 12) : "", `${run.items} items`].filter(Boolean).join(" · ") }),
      agreementBlock(run),
      gates.length ? el("ul", { id: "gates" }, gates) : null,
      el("table", { id: "summary" }, el("thead", {}, el("tr", {}, ["scorer", "mean", "95% CI", "scored", "skipped", "error", "detectable"].map((t) => el("th", { text: t })))), el("tbody", {}, rows)),
      el("p", {}, run.report
        ? el("a", { href: `/report?path=${enc(path)}&token=${enc(TOKEN)}`, target: "_blank", rel: "noopener", id: "report-link" }, "Open the full report")
        : el("span", { class: "muted", text: "Too many items for one report page: browse them below." })),
      el("h2", { text: "Items" }), controls, pager,
      el("table", {}, el("thead", {}, el("tr", {}, ["id", "input", "scores", "error"].map((t) => el("th", { text: t })))), items));
    const at = Number.isInteger(wanted) && wanted >= 0 ? wanted : undefined;
    await page(at === undefined ? 0 : at - (at % run.page_size), at);
    facets();  // after the first items: the run's metadata is read while the person looks
  }

  // ---- compare ----
  function side(label, s) {
    return el("td", { class: "side" },
      el("div", {}, el("b", { text: label + ": " }), s.status === "scored" ? fmt(s.score) : s.status),
      el("pre", { text: s.reason || "" }),
      s.chunks.length ? el("ol", { class: "chunks" }, s.chunks.map((c) => el("li", { text: `${c.id ? c.id + ": " : ""}${c.text}` })),
        s.more_chunks ? el("li", { class: "muted", text: `… and ${s.more_chunks} more` }) : null) : el("p", { class: "muted", text: "no chunks" }));
  }

  async function comparePage(query) {
    const params = new URLSearchParams(query);
    const paths = params.getAll("path");
    const drop = el("input", { type: "text", id: "max-drop", placeholder: "scorer=0.05", value: params.get("max_drop") || "" });
    const out = el("div", { id: "comparison" }, el("p", { class: "muted", text: "Comparing…" }));
    const address = () => {  // the runs, the gate, its verdict and the moved items' choices
      const q = new URLSearchParams();
      for (const p of paths) q.append("path", p);
      for (const [k, v] of Object.entries(want)) if (v) q.set(k, v);
      history.replaceState(null, "", "#/compare?" + q.toString());
    };
    const want = { max_drop: params.get("max_drop") || "", verdict: "", against: params.get("against") || paths[1], scorer: params.get("scorer") || "", slice: params.get("slice") || "" };
    async function run() {
      want.max_drop = drop.value.trim();
      const q = paths.map((p) => "path=" + enc(p)).join("&") + (want.max_drop ? "&max_drop=" + enc(want.max_drop) : "");
      const found = await api("/api/compare?" + q);
      const verdict = found.exit_code === 0 ? "pass" : found.exit_code === 4 ? "undecided" : "fail";
      const words = { pass: "gates passed", fail: "a gate FAILED (exit 1)", undecided: "a gate could not decide (exit 4)" };
      const box = el("div", {});
      box.innerHTML = found.html; // rendered and escaped by the server
      fill(out, found.gates.length ? el("div", { class: "banner " + verdict, id: "verdict", text: words[verdict] }) : "", box);
      want.verdict = found.gates.length ? verdict : "";
      address();
    }
    const against = el("select", { id: "moved-run" }, paths.slice(1).map((p) => el("option", { value: p, text: p })));
    against.value = want.against;
    const scorerPick = el("select", { id: "moved-scorer" });
    const slicePick = el("select", { id: "moved-slice" });
    const moved = el("table", { id: "moved" });
    const movedNote = el("p", { class: "muted" });
    async function movedItems() {
      want.against = against.value; want.scorer = scorerPick.value; want.slice = slicePick.value;
      const [key, group] = want.slice ? JSON.parse(want.slice) : ["", ""];
      const found = await api(`/api/moved?path=${enc(paths[0])}&path=${enc(want.against)}&scorer=${enc(want.scorer)}&slice=${enc(key)}&group=${enc(group)}`);
      fill(scorerPick, ...found.scorers.map((sid) => el("option", { value: sid, text: sid })));
      scorerPick.value = want.scorer = found.scorer;
      fill(slicePick, el("option", { value: "", text: "every item" }),
        ...Object.entries(found.slices).flatMap(([k, groups]) => groups.map((g) => el("option", { value: JSON.stringify([k, g]), text: `${k} = ${g}` }))));
      slicePick.value = want.slice;
      movedNote.textContent = `${found.moved} of ${found.paired} paired items moved; the ${found.items.length} that moved most, failures first:`;
      fill(moved, el("thead", {}, el("tr", {}, ["item", "change", paths[0] + " (baseline)", want.against].map((t) => el("th", { text: t })))),
        el("tbody", {}, found.items.map((it) => el("tr", { class: "moved", "data-id": it.id },
          el("td", {}, el("b", { text: it.id }), el("div", { class: "muted", text: it.input })),
          el("td", { class: "num " + (it.delta === null ? "error" : it.delta < 0 ? "verdict-no" : "verdict-yes"), text: it.delta === null ? "status" : (it.delta > 0 ? "+" : "") + fmt(it.delta) }),
          side("baseline", it.base), side("candidate", it.other)))));
      address();
    }
    for (const control of [against, scorerPick, slicePick]) control.addEventListener("change", () => movedItems().catch(failed));
    show(el("h1", { text: `Baseline ${paths[0]} against ${paths.length - 1} run(s)` }),
      el("p", {}, "Max drop gate (ID=VALUE): ", el("span", { class: "drop" }, drop), el("button", { onclick: () => run().catch(failed) }, "Apply")),
      out,
      el("h2", { text: "Items that moved most" }),
      el("p", { class: "choices" }, paths.length > 2 ? ["candidate ", against, " "] : null, "scorer ", scorerPick, " slice ", slicePick),
      movedNote, moved);
    await run();
    await movedItems();
  }

  // ---- review the judge ----
  // who labels: asked once, kept in this browser, sent with every label
  const ANNOTATOR = "scorekit.annotator", BLIND = "scorekit.blind";
  function annotatorForm(then) {
    const name = el("input", { type: "text", id: "annotator", placeholder: "your name", maxlength: 100, value: localStorage.getItem(ANNOTATOR) || "" });
    const start = el("button", { class: "primary", id: "start", onclick: () => {
      if (!name.value.trim()) { name.focus(); return; }
      localStorage.setItem(ANNOTATOR, name.value.trim());
      then();
    } }, "Start labelling");
    name.addEventListener("keydown", (e) => { if (e.key === "Enter") start.click(); });
    show(el("h1", { text: "Who is labelling?" }),
      el("p", { class: "muted", text: "Your name goes with every label you make, so that several people can label the same verdicts and their agreement be measured. It is kept in this browser." }),
      el("p", { class: "drop" }, name), start);
    name.focus();
  }

  async function reviewPage(path, query) {
    const params = new URLSearchParams(query || "");
    if (params.get("annotator") && params.get("annotator").trim()) localStorage.setItem(ANNOTATOR, params.get("annotator").trim().slice(0, 100));
    const annotator = localStorage.getItem(ANNOTATOR);
    if (!annotator) { annotatorForm(() => route()); return; }
    const seed = Number(params.get("seed") || 0);
    const blind = params.has("blind") ? params.get("blind") === "1" : localStorage.getItem(BLIND) === "1";
    const found = await api(`/api/sample?path=${enc(path)}&n=30&seed=${seed}&annotator=${enc(annotator)}`);
    const verdicts = found.verdicts;
    let at = 0, revealed = null, labelled = 0, saving = false;
    const progress = el("p", { id: "progress" });
    const card = el("div", { class: "card", id: "card" });
    const run = await api("/api/run?path=" + enc(path));
    const agreement = el("div", { class: "banner", id: "live-agreement" },
      run.agreement.map((a) => el("div", { "data-scorer": a.scorer_id, text: a.line })));
    const people = el("div", { class: "banner", id: "people", hidden: !run.people.length },
      el("b", { text: "People with each other" }), el("ul", {}, run.people.map((a) => el("li", { text: a.line }))));
    const refused = el("p", { class: "error", id: "label-error", hidden: true });
    const note = el("input", { type: "text", id: "note", placeholder: "a note with your label (optional)", maxlength: 4000 });
    const blindBox = el("input", { type: "checkbox", id: "blind", checked: blind });
    blindBox.addEventListener("change", () => {
      localStorage.setItem(BLIND, blindBox.checked ? "1" : "0");
      location.hash = `/review/${enc(path)}?seed=${seed}&blind=${blindBox.checked ? 1 : 0}`;
    });
    // one answer at a time, for the verdict on screen: a second press while the first is
    // being saved is ignored, so no verdict is ever passed over unseen
    async function answer(label) {
      if (saving || revealed || at >= verdicts.length) return;
      const v = verdicts[at];
      saving = true;
      try {
        const saved = await api("/api/label", { verdict: v, label, annotator, note: note.value, blind });
        const line = [...agreement.children].find((d) => d.dataset.scorer === v.scorer_id);
        if (line) line.textContent = saved.agreement.line;
        else agreement.append(el("div", { "data-scorer": v.scorer_id, text: saved.agreement.line }));
        if (saved.people.length) { people.hidden = false; fill(people.lastChild, ...saved.people.map((t) => el("li", { text: t }))); }
        refused.hidden = true;
        note.value = "";
        if (verdicts[at] === v) {
          labelled += 1;
          if (blind) revealed = { v, label }; else at += 1;
        }
        draw();
      } catch (error) {
        refused.textContent = "Not saved: " + String(error.message || error) + " (this verdict stays on screen; answer again)";
        refused.hidden = false;
      } finally {
        saving = false;
      }
    }
    function next() { if (revealed) { revealed = null; at += 1; draw(); } }
    const help = el("div", { class: "banner", id: "help", hidden: true },
      el("b", { text: "Keys" }),
      el("ul", {}, [blind ? "y / n: yes / no (h, m, l, n: a relevance level)" : "a / d: agree / disagree (h, m, l, n: a relevance level)", "u: cannot decide",
        "s or →: skip this verdict (no label); after a blind answer, go on", "k or ←: back to the previous verdict (a new answer replaces your label)",
        "Enter in the note field: nothing is sent until you answer", "?: show or hide this sheet"].map((t) => el("li", { text: t }))));
    const said = (v, label) => v.kind === "relevance" ? LEVELS[label] : label ? "yes" : "no";
    function judgeSaid(v) {
      if (blind && !revealed) return el("p", { class: "muted", id: "judge-hidden", text: "Blind: the judge's verdict and reason are shown once you have answered." });
      const yes = v.kind === "relevance" ? v.grade >= 2 : v.supported;
      return el("p", { id: "judge-said" }, "The judge said ", el("span", { class: yes ? "verdict-yes" : "verdict-no", id: v.kind === "relevance" ? "judge-level" : "judge-verdict", text: v.kind === "relevance" ? LEVELS[v.grade] : yes ? "yes" : "no" }), ": ", el("i", { text: v.reason }));
    }
    function buttons(v) {
      if (revealed) {
        const label = revealed.label;
        return el("div", {}, el("p", { id: "revealed" }, "You said ", el("b", { text: label === null ? "cannot decide" : said(v, label) }),
          label === null ? "" : (v.kind === "relevance" ? label === v.grade : label === v.supported) ? " — the same as the judge." : " — the judge did not."),
          el("button", { class: "primary", id: "next", onclick: next }, "Next (→)"));
      }
      const unsure = el("button", { id: "unsure", onclick: () => answer(null) }, "Cannot decide (u)");
      if (v.kind === "relevance") {
        return el("p", {}, [3, 2, 1, 0].map((grade) =>
          el("button", { id: "level-" + LEVELS[grade], class: !blind && grade === v.grade ? "primary" : null, onclick: () => answer(grade) },
            `${LEVELS[grade][0].toUpperCase()}${LEVELS[grade].slice(1)} (${LEVELS[grade][0]})`)), unsure);
      }
      if (blind) return el("p", {}, el("button", { id: "yes", onclick: () => answer(true) }, "Yes (y)"), el("button", { id: "no", onclick: () => answer(false) }, "No (n)"), unsure);
      return el("p", {},
        el("button", { class: "primary", id: "agree", onclick: () => answer(v.supported) }, "Agree (a)"),
        el("button", { id: "disagree", onclick: () => answer(!v.supported) }, "Disagree (d)"), unsure);
    }
    function draw() {
      progress.textContent = `${Math.min(at, verdicts.length)} of ${verdicts.length} passed in this sample (${labelled} labelled here)`;
      if (at >= verdicts.length) {
        fill(card, el("p", { text: verdicts.length ? "Done: every verdict of this sample is labelled." : "No verdict of this run is left for you to label." }),
          link(`/review/${enc(path)}?seed=${seed + 1}`, "Another sample"), " · ", link("/run/" + enc(path), "Back to the run"));
        return;
      }
      const v = verdicts[at];
      card.dataset.key = v.key;
      const what = v.kind === "relevance" ? "How relevant is this chunk to the question?"
        : v.kind === "claim" ? "Is this claim supported by the retrieved context?" : "Is this chunk useful for the reference?";
      fill(card, 
        el("p", { class: "muted", text: `${v.scorer_id} · item ${v.item_id} · judge ${v.judge_model}, prompt v${v.prompt_version}` }),
        el("p", {}, el("b", { text: what })),
        el("p", { class: "muted", text: "Question: " + v.input }),
        el("div", { class: "text", text: v.text }),
        v.shortened ? el("p", { class: "muted", text: "(long texts are shortened here; the label is for the whole verdict)" }) : null,
        v.kind === "claim" ? el("div", {}, el("p", { class: "muted", text: "Context:" }), v.context.map((c, i) => el("div", { class: "chunk", text: `[${i}] ${c}` })))
          : v.kind === "chunk" ? el("div", {}, el("p", { class: "muted", text: v.scorer_id === "context-utilization" ? "Response:" : "Reference answer:" }), el("div", { class: "chunk", text: v.reference }))
          : null,
        judgeSaid(v), revealed ? null : el("p", { class: "drop wide" }, note), buttons(v));
    }
    document.onkeydown = (e) => {
      if (e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA") return;
      if (e.key === "?") { help.hidden = !help.hidden; return; }
      if (revealed) { if (["s", "ArrowRight", "Enter", " "].includes(e.key)) { e.preventDefault(); next(); } return; }
      if ((e.key === "k" || e.key === "ArrowLeft") && !saving && at > 0) { at -= 1; draw(); return; }
      if (at >= verdicts.length) return;
      if ((e.key === "s" || e.key === "ArrowRight") && !saving) { at += 1; draw(); return; }
      const v = verdicts[at];
      if (v.kind === "relevance") {
        const grade = LEVELS.findIndex((name) => name[0] === e.key);
        if (grade >= 0) answer(grade);
      } else if (blind) {
        if (e.key === "y") answer(true);
        if (e.key === "n") answer(false);
      } else {
        if (e.key === "a") answer(v.supported);
        if (e.key === "d") answer(!v.supported);
      }
      if (e.key === "u") answer(null);
    };
    show(el("h1", { text: "Review the judge: " + path }),
      el("p", { class: "muted" }, `Labelling as `, el("b", { id: "who", text: annotator }), " · ",
        el("a", { href: "#", id: "change-annotator", onclick: (e) => { e.preventDefault(); localStorage.removeItem(ANNOTATOR); route(); } }, "not you?"), " · ",
        el("label", {}, blindBox, " blind (hide the judge's verdict until you answer)")),
      el("p", { class: "muted", text: "A seeded sample, stratified by scorer and verdict, of verdicts you have not labelled. Each answer is saved at once. Keys: ? shows them all (s skips, k goes back)." }),
      progress, refused, card, help, agreement, people);
    draw();
  }

  // ---- review a synthesized set ----
  function fitted(textarea) {  // an editor as tall as its text
    const fit = () => { textarea.style.height = "auto"; textarea.style.height = textarea.scrollHeight + 2 + "px"; };
    textarea.addEventListener("input", fit);
    requestAnimationFrame(fit);
    return textarea;
  }

  async function dataSetPage(path) {
    const found = await api("/api/data_set?path=" + enc(path));
    const written = el("p", { id: "written" });
    let current = 0;
    const trs = [];
    function focusRow(k) {
      if (!trs.length) return;
      current = Math.max(0, Math.min(k, trs.length - 1));
      trs.forEach((tr, i) => tr.classList.toggle("current", i === current));
      trs[current].scrollIntoView({ block: "nearest" });
    }
    const rows = found.rows.map((row, k) => {
      const review = found.reviews[String(row.id)];
      const edited = review ? review.row : row;
      const q = fitted(el("textarea", { rows: 2, class: "question" })); q.value = edited.input ?? "";
      const a = fitted(el("textarea", { rows: 2, class: "answer" })); a.value = edited.ground_truth ?? "";
      const ids = el("input", { type: "text", class: "gold" }); ids.value = (edited.reference_context_ids || []).join(", ");
      const gold = (row.reference_contexts || []).map((text, i) => el("div", { class: "chunk passage", text: `${(row.reference_context_ids || [])[i] || ""}${(row.reference_context_ids || [])[i] ? ": " : ""}${text}` }));
      const tr = el("tr", { "data-row": row.id, class: review ? "row-" + review.decision : "" });
      async function decide(decision) {
        const changed = { input: q.value, ground_truth: a.value, reference_context_ids: ids.value.split(",").map((s) => s.trim()).filter(Boolean) };
        await api("/api/review", { data_set: path, row_id: String(row.id), decision, row: changed });
        tr.classList.remove("row-accept", "row-reject");
        tr.classList.add("row-" + decision);
      }
      tr.decide = (decision) => decide(decision).then(() => focusRow(k + 1)).catch(failed);
      for (const editor of [q, a, ids]) editor.addEventListener("keydown", (e) => {
        if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); editor.blur(); tr.decide("accept"); }
        if (e.key === "Escape") { editor.blur(); focusRow(k); }
      });
      tr.addEventListener("click", () => focusRow(k));
      tr.append(el("td", { text: row.id }), el("td", { class: "editors" }, el("label", { class: "muted", text: "question" }), q, el("label", { class: "muted", text: "answer" }), a, el("label", { class: "muted", text: "gold ids" }), ids),
        el("td", { class: "gold-passage" }, gold.length ? gold : el("span", { class: "muted", text: "no passage text in this row" })),
        el("td", {}, el("button", { class: "accept", onclick: () => tr.decide("accept") }, "Accept (a)"),
          el("button", { class: "reject", onclick: () => tr.decide("reject") }, "Reject (r)")));
      trs.push(tr);
      return tr;
    });
    document.onkeydown = (e) => {
      if (["INPUT", "TEXTAREA"].includes(e.target.tagName) || !trs.length) return;
      if (e.key === "a") trs[current].decide("accept");
      else if (e.key === "r") trs[current].decide("reject");
      else if (e.key === "j" || e.key === "ArrowDown") { e.preventDefault(); focusRow(current + 1); }
      else if (e.key === "k" || e.key === "ArrowUp") { e.preventDefault(); focusRow(current - 1); }
      else if (e.key === "e") { e.preventDefault(); trs[current].querySelector("textarea").focus(); }
    };
    const write = el("button", { class: "primary", id: "write", onclick: async () => {
      try {
        const done = await api("/api/write", { data_set: path });
        written.textContent = `Wrote ${done.rows} accepted rows to ${done.path}`;
      } catch (error) { written.textContent = String(error.message); }
    } }, "Write the accepted rows");
    show(el("h1", { text: "Review " + path }),
      el("p", { class: "muted", text: "Edit the question, answer or gold ids beside the gold passage, then accept or reject each row; decisions are saved at once. Keys: a accept, r reject (then the next row), j / k or ↓ / ↑ move, e edit, Ctrl+Enter in an editor accepts, Esc leaves it." }),
      el("table", { id: "rows" }, el("thead", {}, el("tr", {}, ["id", "question, answer, gold ids", "gold passage", ""].map((t) => el("th", { text: t })))), el("tbody", {}, rows)),
      el("p", {}, write), written);
    focusRow(0);
  }

  async function route() {
    clearInterval(poller);
    document.onkeydown = null;
    const hash = location.hash.slice(1) || "/";
    const [where, query] = hash.split("?");
    status.textContent = "";
    try {
      if (where.startsWith("/run/")) await runPage(decodeURIComponent(where.slice(5)), query);
      else if (where === "/compare") await comparePage(query || "");
      else if (where.startsWith("/review/")) await reviewPage(decodeURIComponent(where.slice(8)), query);
      else if (where.startsWith("/data_set/")) await dataSetPage(decodeURIComponent(where.slice(10)));
      else await home(query);
      document.body.setAttribute("data-ready", decodeURIComponent(where));
    } catch (error) {
      failed(error);
      document.body.setAttribute("data-ready", "error");
    }
  }
  window.addEventListener("hashchange", () => { document.body.removeAttribute("data-ready"); route(); });
  route();
})();
