"""What `scorekit view` answers: each route a method that takes the request's parameters
and returns JSON (or a page), independent of the HTTP server that carries it."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path
from typing import Any

from scorers import ConfigError

from .._agreement._agreement import agreement_of, agreements_for
from .._agreement._people import people_agreements
from .._agreement._verdicts import draw_verdicts, judged_scorers, run_verdicts, verdicts_of
from .._file._header import RunHeader
from .._labels import JudgeVerdict, LabelStore
from ._datasets import accepted_rows, data_set_rows
from ._index import Entry, RunIndex
from ._listing import Listing
from ._moved import MOVED_SHOWN, moved_items, slices_of
from ._params import BadRequest, Encoded, NotFound, one, short, shown, whole
from ._rows import Row, chosen, facets, light_rows

PAGE_SIZE = 50
CHOICES = ("q", "status", "scorer", "min", "max", "meta_key", "meta_value", "sort", "order")
"""What `/api/items` searches, filters and sorts by (`_rows.chosen`)."""
SAMPLED_KEPT = 5_000
"""Verdicts drawn for review kept whole, by key, for the labels that come back."""
REPORT_LIMIT = 20_000
"""Runs with more items open in the viewer's paged item list, not as one report page."""


def _header(entry: Entry) -> RunHeader | None:
    found = entry.record.get("header")
    return None if found is None else RunHeader.model_validate(found)


class ViewApp:
    """The routes of the viewer over one folder (its index and its labels)."""

    def __init__(self, index: RunIndex, store: LabelStore):
        self.index, self.store = index, store
        self._verdicts: dict[str, tuple[Entry, dict[str, dict[str, bool | int]]]] = {}
        self._sampled: dict[str, JudgeVerdict] = {}
        self._light: dict[str, tuple[Entry, list[Row]]] = {}
        self._facets: dict[str, tuple[Entry, dict[str, list[str] | None]]] = {}
        self._listing = Listing()
        self._reading = threading.Lock()
        self._locks: dict[tuple[int, str], threading.Lock] = {}

    def _read_once(self, cache: dict[str, tuple[Entry, Any]], entry: Entry, read: Any) -> Any:
        """``read(entry)``, kept per version of the entry's file; requests asking at once
        wait for one reading (a run's file is read by one thread, not by each; other runs
        are not held up)."""
        with self._reading:
            lock = self._locks.setdefault((id(cache), entry.path), threading.Lock())
        with lock:
            cached = cache.get(entry.path)
            if cached is None or cached[0] is not entry:
                cache[entry.path] = cached = (entry, read(entry))
            return cached[1]

    def _run_verdicts(self, entry: Entry) -> dict[str, dict[str, bool | int]]:
        """The run's own verdicts (`run_verdicts`), read once per version of its file."""
        return self._read_once(
            self._verdicts, entry, lambda e: run_verdicts(self.index.iter_items(e), _header(e))
        )

    def _rows(self, entry: Entry) -> list[Row]:
        """The run's light rows (`_rows.light_rows`), read once per version of its file."""
        return self._read_once(
            self._light,
            entry,
            lambda e: light_rows(self.index.light_lines(e) or self.index.iter_lines(e)),
        )

    def _entry(self, params: dict[str, list[str]], kind: str = "run") -> Entry:
        name = one(params, "path")
        try:
            return self.index.entry(name, kind)
        except KeyError:
            raise NotFound(f"no {kind.replace('_', ' ')} {name!r} in this folder") from None

    def runs(self, params: dict[str, list[str]]) -> Encoded:
        """Every run (as the listing shows it, `_listing.listed`) and synthesized set of the
        folder, as far as they are read."""
        found = self.index.scan()
        found["labels"] = len(self.store.keys())
        return self._listing.answer(found)

    def run(self, params: dict[str, list[str]]) -> dict[str, Any]:
        """One run: its record and people's agreement with its judge."""
        entry = self._entry(params)
        header = _header(entry)
        agreements = agreements_for(header, self.store, self._run_verdicts(entry))
        people = people_agreements(self.store, list(judged_scorers(header)))
        return {
            **entry.record,
            "agreement": [a.model_dump(mode="json") | {"line": a.line()} for a in agreements],
            "people": [a.model_dump(mode="json") | {"line": a.line()} for a in people],
            "page_size": PAGE_SIZE,
            "report": entry.record["items"] <= REPORT_LIMIT,
        }

    def items(self, params: dict[str, list[str]]) -> dict[str, Any]:
        """A page of a run's items: id, question, each scorer's score, status, reason; in
        file order, or searched, filtered and sorted (`_rows.chosen`'s parameters)."""
        entry = self._entry(params)
        start = whole(params, "start", 0)
        count = min(whole(params, "count", PAGE_SIZE), 500)
        asked = {k: v[0] for k, v in params.items() if k in CHOICES and v and v[0]}
        if asked:
            try:
                indices = chosen(self._rows(entry), asked)
            except ValueError as exc:
                raise BadRequest(str(exc)) from None
            page = indices[start : start + count]
            found = [self.index.items(entry, at, 1)[0] for at in page]
            total = len(indices)
        else:
            page = list(range(start, min(start + count, len(entry.offsets))))
            found, total = self.index.items(entry, start, count), len(entry.offsets)
        return {
            "start": start,
            "total": total,
            "items": [
                {
                    "index": page[k],
                    "id": item.item.id,
                    "input": short(item.item.input),
                    "error": None if item.error is None else item.error.message,
                    "scores": {
                        sid: {"score": r.score, "status": r.status, "reason": short(r.reason)}
                        for sid, r in item.scorer_results.items()
                    },
                }
                for k, item in enumerate(found)
            ],
        }

    def facets(self, params: dict[str, list[str]]) -> dict[str, Any]:
        """The metadata keys of a run's items with their values (`_rows.facets`), for the
        item filter."""
        found = self._read_once(self._facets, self._entry(params), lambda e: facets(self._rows(e)))
        return {"metadata": found}

    def item(self, params: dict[str, list[str]]) -> dict[str, Any]:
        """One item of a run in full, as its results line holds it."""
        entry = self._entry(params)
        at = whole(params, "index", 0)
        if not 0 <= at < len(entry.offsets):
            raise NotFound(f"the run has no item {at}")
        return self.index.items(entry, at, 1)[0].model_dump(mode="json")

    def report(self, params: dict[str, list[str]]) -> str:
        """The run's full report page (runs up to `REPORT_LIMIT` items)."""
        from .._results import read_results
        from .._results._html import render_report

        entry = self._entry(params)
        if entry.record["items"] > REPORT_LIMIT:
            raise BadRequest(
                f"{entry.path} holds {entry.record['items']:,} items; its page would be too big "
                f"to open (over {REPORT_LIMIT:,}): browse its items in the viewer"
            )
        run = read_results(self.index.path(entry), mixed=True)
        lines = [
            a.line() for a in agreements_for(run.header, self.store, self._run_verdicts(entry))
        ]
        return render_report(
            run, summary=run.summary, header=run.header, title=entry.path, agreement=lines
        )

    def compare(self, params: dict[str, list[str]]) -> dict[str, Any]:
        """The chosen runs compared with the first (paired tests, detectable change and
        the ``max_drop`` gates)."""
        from .._compare._comparison import comparison_html, drop_gates
        from .._compare._drop import candidate_gates_html, gates_html
        from .._results import RunComparison, compare_runs
        from .._stats._gate import bounds, gates_exit

        names = params.get("path", [])
        if len(names) < 2:
            raise BadRequest("choose at least two runs to compare (the first is the baseline)")
        paths = [self.index.path(self._entry({"path": [n]})) for n in names]
        limits = bounds(params.get("max_drop", []), "max_drop")
        try:
            found = compare_runs(*paths, names=names)  # type: ignore[call-overload]
        except ConfigError as exc:
            raise BadRequest(str(exc)) from None
        if isinstance(found, RunComparison):
            gates = drop_gates(found, limits)
            body = comparison_html(found)
            own = {names[1]: found.candidate_gates}
        else:
            gates = [g for n, pair in found.pairs.items() for g in drop_gates(pair, limits, n)]
            body = found.html()
            own = {n: pair.candidate_gates for n, pair in found.pairs.items()}
        thresholds = [g for found_gates in own.values() for g in found_gates]
        return {
            "html": gates_html(gates) + candidate_gates_html(own) + body,
            "table": found.table(),
            "gates": [g.model_dump(mode="json") for g in gates],
            "candidate_gates": {
                n: [g.model_dump(mode="json") for g in found_gates]
                for n, found_gates in own.items()
            },
            "exit_code": gates_exit([*gates, *thresholds]),
        }

    def moved(self, params: dict[str, list[str]]) -> dict[str, Any]:
        """The items that moved most from the baseline (first ``path``) to a candidate
        (second), for one ``scorer`` (default: the first both have), over the slice
        ``slice`` = ``group`` when given (`_moved.moved_items`)."""
        names = params.get("path", [])
        if len(names) != 2:
            raise BadRequest("give two runs: the baseline, then the candidate")
        entries = [self._entry({"path": [n]}) for n in names]
        base, other = (self._rows(entry) for entry in entries)
        theirs = {sid for row in other for sid in row.statuses}
        shared = sorted(({sid for row in base for sid in row.statuses} & theirs) - {"(item)"})
        scorer = params.get("scorer", [""])[0] or (shared[0] if shared else "")
        if scorer not in shared:
            raise BadRequest(
                f"both runs must have the scorer {scorer!r}; they share: {', '.join(shared) or 'none'}"
            )
        key, group = params.get("slice", [""])[0], params.get("group", [""])[0]
        slices = slices_of(base)
        if key and (key not in slices or group not in slices[key]):
            raise BadRequest(f"the baseline has no slice {key}={group!r}")
        found = moved_items(
            base,
            other,
            scorer,
            lambda run, at: self.index.items(entries[run], at, 1)[0],
            key,
            group,
            min(whole(params, "n", MOVED_SHOWN), 200),
        )
        return {"scorer": scorer, "scorers": shared, "slices": slices, **found}

    def sample(self, params: dict[str, list[str]]) -> dict[str, Any]:
        """Verdicts of a run for people to label: stratified, seeded, unlabelled ones."""
        entry = self._entry(params)
        n = min(max(whole(params, "n", 30), 1), 500)
        header = _header(entry)
        items = self.index.iter_items(entry)
        chosen = draw_verdicts(
            items,
            entry.path,
            header,
            n,
            seed=whole(params, "seed", 0),
            skip=self.store.keys(params.get("annotator", [""])[0]),
        )
        for v in chosen:
            self._sampled[v.key] = v
        while len(self._sampled) > SAMPLED_KEPT:
            del self._sampled[next(iter(self._sampled))]
        return {"verdicts": [shown(v) for v in chosen]}

    def _verdict(self, sent: Any) -> JudgeVerdict:
        """The full verdict a label is for: the one drawn under its ``key`` (texts on the
        page are shortened), else found again in its run's item, else the verdict sent
        whole (its key recomputed from what it holds must be the key it names)."""
        if not isinstance(sent, dict):
            raise BadRequest("send the verdict to label (as /api/sample gave it)")
        key = sent.get("key")
        found = self._sampled.get(key) if isinstance(key, str) else None
        if found is not None:
            return found
        try:
            entry = self._entry({"path": [str(sent.get("run", ""))]})
        except (NotFound, BadRequest):
            entry = None
        if entry is not None and isinstance(key, str):
            judged = judged_scorers(_header(entry))
            for item in self.index.iter_items(entry):
                if item.item.id == sent.get("item_id"):
                    for v in verdicts_of(item, entry.path, judged):
                        if v.key == key:
                            return v
        try:
            whole = JudgeVerdict.model_validate({k: v for k, v in sent.items() if k != "key"})
        except ValueError as exc:
            raise BadRequest(f"not a verdict: {exc}") from None
        if key is not None and whole.key != key:
            raise BadRequest(
                "this verdict is no longer in its run (the file changed): draw a new sample"
            )
        return whole

    def label(self, body: dict[str, Any]) -> dict[str, Any]:
        """Store a person's label on a verdict; returns the judge's agreement now."""
        verdict = self._verdict(body.get("verdict"))
        label = body.get("label")
        if verdict.graded:
            if label is not None and (isinstance(label, bool) or label not in (0, 1, 2, 3)):
                raise BadRequest("label a relevance verdict 0 (none) to 3 (high), or null (unsure)")
        elif label not in (True, False, None) or not isinstance(label, (bool, type(None))):
            raise BadRequest("label must be true (supported / useful), false, or null (unsure)")
        annotator, note, blind = (
            body.get(k, d) for k, d in (("annotator", ""), ("note", ""), ("blind", False))
        )
        if (
            not isinstance(annotator, str)
            or not isinstance(note, str)
            or not isinstance(blind, bool)
        ):
            raise BadRequest("annotator and note are text, blind is true or false")
        try:
            saved = self.store.save(verdict, label, annotator=annotator, note=note, blind=blind)
        except ConfigError as exc:
            raise BadRequest(str(exc)) from None
        try:
            verdicts = self._run_verdicts(self._entry({"path": [verdict.run]})).get(
                verdict.scorer_id, {}
            )
        except (NotFound, BadRequest):
            verdicts = None  # the run is gone: the label is kept, agreement is not known
        agreement = agreement_of(
            self.store, verdict.scorer_id, verdict.judge_model, verdict.prompt_version, verdicts
        )
        people = people_agreements(self.store, [verdict.scorer_id])
        return {
            "key": saved.key,
            "agreement": agreement.model_dump() | {"line": agreement.line()},
            "people": [a.line() for a in people],
        }

    def export(self, params: dict[str, list[str]]) -> str:
        """Each person's decided label on one scorer's verdicts as `calibrate`'s rows
        (JSON lines: claim, chunk or relevance rows), with its annotator and note."""
        rows = self.store.calibration_rows(one(params, "scorer"), each=True)
        return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)

    def data_set(self, params: dict[str, list[str]]) -> dict[str, Any]:
        """A synthesized set's rows with people's decisions on them."""
        entry = self._entry(params, "data_set")
        rows = data_set_rows(self.index.path(entry))
        reviews = self.store.reviews(entry.path)
        return {
            "path": entry.path,
            "rows": rows,
            "reviews": {k: r.model_dump(mode="json") for k, r in reviews.items()},
        }

    def review(self, body: dict[str, Any]) -> dict[str, Any]:
        """Store a decision (accept, with edits, or reject) on one synthesized row."""
        entry = self._entry({"path": [str(body.get("data_set", ""))]}, "data_set")
        decision, row = body.get("decision"), body.get("row")
        if decision not in ("accept", "reject") or not isinstance(row, dict):
            raise BadRequest("a review is {data_set, row_id, decision: accept|reject, row: {...}}")
        saved = self.store.review(entry.path, str(body.get("row_id", "")), decision, row)
        return saved.model_dump(mode="json")

    def write_data_set(self, body: dict[str, Any]) -> dict[str, Any]:
        """Write a set's accepted rows (with their edits) beside it as
        ``<name>.reviewed.jsonl``; only a file this viewer wrote is ever replaced."""
        from scorers._internal import write_atomically

        entry = self._entry({"path": [str(body.get("data_set", ""))]}, "data_set")
        source = self.index.path(entry)
        rows = accepted_rows(data_set_rows(source), self.store.reviews(entry.path))
        if not rows:
            raise BadRequest("no row is accepted yet: accept rows first")
        data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()
        target = source.with_name(source.name.removesuffix(".jsonl") + ".reviewed.jsonl")
        name = target.relative_to(self.index.root).as_posix()
        ours = self.store.written(name)
        if target.exists() and ours != _sha256(target):
            raise BadRequest(
                f"{name} exists and was not written by this review; it was left as it was. "
                "Move it away first"
            )
        write_atomically(target, data)
        self.store.record_written(name, hashlib.sha256(data).hexdigest())
        return {"path": name, "rows": len(rows)}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
