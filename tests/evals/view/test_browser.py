"""A person at the viewer in headless Chromium: the runs and their trend, a comparison,
thirty verdicts labelled, the server killed and restarted, a synthesized set reviewed."""

from __future__ import annotations

import json
import re
import shutil
import signal
import time
import urllib.parse
from pathlib import Path

import pytest

from evals import LabelStore
from evals.cli import main

from ._browser import needs_browser, start_view

pytestmark = [pytest.mark.slow, needs_browser]


def test_browse_compare_label_kill_restart_and_review(runs, browser, capsys):
    proc, url = start_view(runs)
    try:
        tab = browser.tab()
        tab.open(url)
        tab.ready("/")  # the folder is read in the background: the page shows runs as they come
        tab.wait("document.querySelectorAll('#runs tbody tr').length === 3")
        tab.wait("document.querySelectorAll('#trends svg').length === 8")
        charts = tab.js("[...document.querySelectorAll('#trends svg')].map(s => s.dataset.scorer)")
        assert "context-recall" in charts and "mrr" in charts and len(charts) == 8
        points = "#trends svg[data-scorer='context-recall'] circle"
        assert tab.js(f"document.querySelectorAll({points!r}).length") == 3
        chart = "#trends svg[data-scorer='context-recall']"  # issue 57: axes a person can read
        ticks = tab.js(
            f"[...document.querySelectorAll({chart + ' .tick.y'!r})].map(t => t.textContent)"
        )
        assert ticks == ["0", "0.5", "1"]
        dates = tab.js(
            f"[...document.querySelectorAll({chart + ' .tick.x'!r})].map(t => t.textContent)"
        )
        assert len(dates) == 2 and all(re.fullmatch(r"\d{4}-\d{2}-\d{2}", d) for d in dates)
        hover = tab.js(f"document.querySelector({points!r} + ' title').textContent")
        assert re.match(r"k\d\.jsonl \(\d{4}-\d{2}-\d{2}\): mean \d\.\d{3}", hover), hover
        assert tab.js(f"document.querySelectorAll({chart + ' .interval'!r}).length") == 3

        shutil.copy(runs / "k2.jsonl", runs / "k4.jsonl")  # a new run: no restart
        tab.wait("document.querySelectorAll('#runs tbody tr').length === 4")

        tab.js(
            "for (const b of document.querySelectorAll('#runs input[type=checkbox]'))"
            "  if (['k1.jsonl', 'k2.jsonl', 'k3.jsonl'].includes(b.dataset.path)) b.click();"
            "document.getElementById('compare').click()"
        )
        tab.ready("/compare")
        assert tab.js("document.querySelectorAll('#comparison table.runs').length") == 8
        tab.js(
            "document.getElementById('max-drop').value = 'context-recall=0.5';"
            "[...document.querySelectorAll('button')].find(b => b.textContent === 'Apply').click()"
        )
        tab.wait("(document.getElementById('verdict') || {}).textContent === 'gates passed'")

        tab.open(url + "#/run/k3.jsonl")
        tab.ready("/run/k3.jsonl")
        assert "no labels for this judge yet" in tab.js(
            "document.getElementById('agreement').textContent"
        )
        assert tab.js("document.querySelectorAll('#items tr').length") == 28
        tab.js("document.querySelector('#items tr').click()")
        tab.wait("!!document.querySelector('#item-detail h2')")
        tab.js("document.getElementById('review-link').click()")
        tab.ready("/review/k3.jsonl")  # a first visit asks who labels, once
        tab.js("document.getElementById('annotator').value = 'tester'")
        tab.js("document.getElementById('start').click()")
        tab.wait("document.getElementById('who').textContent === 'tester'")
        given = []
        for k in range(30):
            tab.wait(f"document.getElementById('progress').textContent.startsWith('{k} of 30')")
            key = "disagree" if k % 6 == 0 else "agree"
            given.append(key)
            if tab.js("!!document.getElementById('judge-level')"):  # a graded verdict
                level = tab.js("document.getElementById('judge-level').textContent")
                other = "none" if level in ("high", "medium") else "high"
                tab.js(
                    f"document.getElementById('level-{level if key == 'agree' else other}').click()"
                )
            else:
                tab.js(f"document.getElementById({key!r}).click()")
        tab.wait("document.getElementById('progress').textContent.startsWith('30 of 30')")
        assert "labels" in tab.js("document.getElementById('live-agreement').textContent")
        assert tab.errors == []
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)

    stored = LabelStore(runs).labels()
    assert len(stored) == 30
    assert sum(1 for x in stored if x.agrees is False) == given.count("disagree") == 5

    proc, url = start_view(runs)  # a new server, a new token: every label is there
    try:
        tab = browser.tab()
        tab.open(url + "#/run/k3.jsonl")
        tab.ready("/run/k3.jsonl")
        lines = tab.js("[...document.querySelectorAll('#agreement li')].map(li => li.textContent)")
        counts = [int(re.search(r"(\d+) labels", line).group(1)) for line in lines]
        assert sum(counts) == 30 and all("κ " in line for line in lines), lines

        tab.open(url + "#/data_set/synth%2Flabelled.jsonl")
        tab.ready("/data_set/synth/labelled.jsonl")
        rows = tab.js("[...document.querySelectorAll('#rows tbody tr')].map(r => r.dataset.row)")
        assert len(rows) >= 3
        tab.js(
            "const rows = document.querySelectorAll('#rows tbody tr');"
            "rows[0].querySelector('.question').value = 'Edited: where does the Rhine rise?';"
            "rows[0].querySelector('.accept').click(); rows[1].querySelector('.reject').click();"
            "rows[2].querySelector('.accept').click()"
        )
        tab.wait("document.querySelectorAll('#rows tr.row-accept').length === 2")
        tab.js("document.getElementById('write').click()")
        tab.wait("document.getElementById('written').textContent.startsWith('Wrote 2')")
        written = [json.loads(x) for x in (runs / "synth/labelled.reviewed.jsonl").open()]
        assert [r["id"] for r in written] == [rows[0], rows[2]]
        assert written[0]["input"] == "Edited: where does the Rhine rise?"

        one, two = browser.tab(), browser.tab()  # two tabs labelling at once
        one.open(url + "#/review/k1.jsonl?annotator=tester")
        two.open(url + "#/review/k2.jsonl?annotator=tester")
        one.ready("/review/k1.jsonl")
        two.ready("/review/k2.jsonl")
        unsure = set()
        for k in range(8):
            for tab in (one, two):
                tab.wait(f"document.getElementById('progress').textContent.startsWith('{k} of')")
                unsure.add(tab.js("document.getElementById('card').dataset.key"))
                tab.js("document.getElementById('unsure').click()")
        for tab in (one, two):
            tab.wait("document.getElementById('progress').textContent.startsWith('8 of')")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    stored = LabelStore(runs).labels()
    # the two runs share questions: a verdict both tabs showed is one label
    assert {x.key for x in stored if x.label is None} == unsure and len(stored) == 30 + len(unsure)

    assert main(["compare", str(runs / "k1.jsonl"), str(runs / "k3.jsonl"),
                 "--min-agreement", "0.2"]) in (0, 1)  # fmt: skip
    out = capsys.readouterr().out
    assert "judge agreement with people" in out and "labels" in out


def test_data_that_looks_like_markup_stays_text(runs, browser):
    hostile = "<img src=x onerror=\"document.title='pwned'\">"
    lines = (runs / "k1.jsonl").read_text().splitlines()
    changed = []
    for line in lines:
        data = json.loads(line)
        if "item" in data:
            data["item"]["id"] = hostile + data["item"]["id"]
            data["item"]["input"] = hostile
        changed.append(json.dumps(data))
    name = "<img src=x onerror=alert(1)>.jsonl"
    (runs / name).write_text("\n".join(changed) + "\n")
    proc, url = start_view(runs)
    try:
        tab = browser.tab()
        tab.open(url)
        tab.ready("/")
        assert tab.js(
            f"[...document.querySelectorAll('#runs a')].some(a => a.textContent === {name!r})"
        )
        assert tab.js("document.querySelectorAll('img').length") == 0
        quoted = urllib.parse.quote(name, safe="")
        tab.open(url + "#/run/" + quoted)
        tab.ready("/run/" + name)
        assert tab.js("document.querySelectorAll('#items tr').length") == 28
        time.sleep(0.5)
        assert tab.js("document.querySelectorAll('img').length") == 0
        assert tab.js("document.title") == "scorekit view"
        tab.open(url + "#/compare?path=k1.jsonl&path=" + quoted)
        tab.ready("/compare")
        tab.wait("document.querySelectorAll('#comparison table').length > 0")
        assert tab.js("document.querySelectorAll('img').length") == 0
        assert tab.js("document.title") == "scorekit view"
        assert tab.errors == []
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)


def test_labels_by_localhost_are_saved_a_double_press_skips_nothing_and_a_refusal_shows(
    runs, browser
):
    proc, url = start_view(runs)
    try:
        tab = browser.tab()
        tab.open(url.replace("127.0.0.1", "localhost") + "#/review/k3.jsonl?annotator=tester")
        tab.ready("/review/k3.jsonl")
        tab.wait("document.getElementById('progress').textContent.startsWith('0 of 30')")
        first = tab.js("document.getElementById('card').dataset.key")
        tab.js("document.getElementById('agree').click()")
        tab.wait("document.getElementById('progress').textContent.startsWith('1 of 30')")
        assert [x.key for x in LabelStore(runs).labels()] == [first]
        second = tab.js("document.getElementById('card').dataset.key")
        tab.js(  # two presses before the first is saved
            "for (const k of ['a', 'a']) document.dispatchEvent(new KeyboardEvent('keydown', {key: k}))"
        )
        tab.wait("document.getElementById('progress').textContent.startsWith('2 of 30')")
        time.sleep(0.5)
        assert tab.js("document.getElementById('progress').textContent").startswith("2 of 30")
        assert {x.key for x in LabelStore(runs).labels()} == {first, second}
        third = tab.js("document.getElementById('card').dataset.key")
        assert third not in (first, second)
        store = runs / "scorekit-labels.sqlite"  # replaced by another application's file
        import sqlite3

        for extra in ("", "-wal", "-shm"):
            Path(f"{store}{extra}").unlink(missing_ok=True)
        db = sqlite3.connect(store)
        db.execute("CREATE TABLE accounts (id INTEGER)")
        db.commit()
        db.close()
        tab.js("document.getElementById('agree').click()")
        tab.wait("!document.getElementById('label-error').hidden")
        shown = tab.js("document.getElementById('label-error').textContent")
        assert shown.startswith("Not saved: ") and "not a scorekit labels database" in shown
        assert tab.js("document.getElementById('card').dataset.key") == third
        assert tab.js("document.getElementById('progress').textContent").startswith("2 of 30")
        db = sqlite3.connect(store)
        assert [n for (n,) in db.execute("SELECT name FROM sqlite_master")] == ["accounts"]
        db.close()
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)


def test_people_label_relevance_verdicts_with_levels(runs, browser):
    proc, url = start_view(runs)
    try:
        tab = browser.tab()
        tab.open(url)
        tab.ready("/")
        tab.wait("document.querySelectorAll('#runs tbody tr').length === 3")  # all read
        tab.open(url + "#/review/k3.jsonl?annotator=tester")
        tab.ready("/review/k3.jsonl")
        graded = 0
        for k in range(18):
            tab.wait(f"document.getElementById('progress').textContent.startsWith('{k} of 30')")
            if tab.js("!!document.getElementById('judge-level')"):
                level = tab.js("document.getElementById('judge-level').textContent")
                assert level in ("high", "medium", "low", "none")
                assert tab.js("document.querySelectorAll('#card button').length") == 5
                if graded % 2:  # the keyboard: n, l, m, h
                    tab.js("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'm'}))")
                else:
                    tab.js("document.getElementById('level-high').click()")
                graded += 1
            else:
                tab.js("document.getElementById('agree').click()")
        tab.wait("document.getElementById('progress').textContent.startsWith('18 of 30')")
        banner = tab.js("document.getElementById('live-agreement').textContent")
        assert "context-relevance" in banner
        assert tab.errors == []
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    stored = [x for x in LabelStore(runs).labels() if x.verdict.kind == "relevance"]
    assert graded >= 4 and len(stored) == graded
    assert sorted({x.label for x in stored}) == [2, 3]  # medium by key, high by click
    assert all(isinstance(x.label, int) and not isinstance(x.label, bool) for x in stored)


def test_a_run_page_has_no_stray_text_and_an_item_opens_in_place_at_its_own_address(runs, browser):
    """Issue 57: a literal ``null`` sat above a model-free run's summary table (the absent
    agreement and gates), and a clicked item drew its detail below the whole table, out of
    sight. It now opens in a row under its own, inside the window, and the URL names it."""
    from evals import run_evals
    from scorers import create_id_context_recall_scorer

    rows = [{"id": f"q{i:02d}", "input": f"question {i}", "context": [{"id": "d1", "text": "x"}],
             "reference_context_ids": ["d1" if i % 2 else "d9"]} for i in range(40)]  # fmt: skip
    run_evals(rows, [create_id_context_recall_scorer()], results_path=runs / "free.jsonl",
              progress="none")  # fmt: skip
    proc, url = start_view(runs)
    try:
        tab = browser.tab()
        tab.call("Emulation.setDeviceMetricsOverride", width=1280, height=800,
                 deviceScaleFactor=1, mobile=False)  # fmt: skip
        tab.open(url + "#/run/free.jsonl")
        tab.ready("/run/free.jsonl")
        texts = tab.js(
            "[...document.getElementById('main').childNodes].filter(n => n.nodeType === 3).map(n => n.textContent)"
        )
        assert texts == [] and "null" not in tab.js("document.getElementById('main').innerText")
        tab.js("document.querySelector('#items tr[data-index=\"30\"]').click()")
        tab.wait("!!document.querySelector('#item-detail h2')")
        assert tab.js("document.querySelector('#item-detail h2').textContent") == "Item q30"
        top = tab.js("document.getElementById('item-detail').getBoundingClientRect().top")
        assert 0 <= top < 800, top  # inside the window, not thousands of pixels below
        above = tab.js(
            "document.getElementById('item-detail').previousElementSibling.dataset.index"
        )
        shown = tab.js("document.getElementById('item-detail').innerText")
        assert above == "30" and "id-context-recall: 0.000" in shown and "missing: ['d9']" in shown
        assert "d1: x" in shown  # the item's chunks
        assert tab.js("location.hash").endswith("/run/free.jsonl?item=30")
        tab.js("document.querySelector('#items tr[data-index=\"30\"]').click()")  # closes it
        tab.wait("!document.getElementById('item-detail')")
        assert tab.js("location.hash") == "#/run/free.jsonl"
        rows = "document.querySelectorAll('#items tr.item').length"
        tab.js("(() => { const s = document.getElementById('item-search'); s.value = 'q1';"
               "s.dispatchEvent(new Event('input')); })()")  # fmt: skip
        tab.wait(f"{rows} === 10")  # q10 ... q19
        tab.js("(() => { const s = document.getElementById('item-search'); s.value = '';"
               "s.dispatchEvent(new Event('input')); })()")  # fmt: skip
        tab.wait(f"{rows} === 40")
        tab.js("(() => { document.getElementById('item-scorer').value = 'id-context-recall';"
               "const m = document.getElementById('item-min'); m.value = '0.5';"
               "m.dispatchEvent(new Event('change')); })()")  # fmt: skip
        tab.wait(f"{rows} === 20")  # the odd ids found their gold id
        tab.js("(() => { document.getElementById('item-sort').value = 'id';"
               "const d = document.getElementById('item-order'); d.value = 'desc';"
               "d.dispatchEvent(new Event('change')); })()")  # fmt: skip
        tab.wait("document.querySelector('#items tr.item td').textContent === 'q39'")
        assert "chosen of 40" in tab.js("document.getElementById('main').innerText")
        tab.open(url + "#/run/free.jsonl?item=12")  # the address opens the item again
        tab.ready("/run/free.jsonl")
        tab.wait("!!document.querySelector('#item-detail h2')")
        assert tab.js("document.querySelector('#item-detail h2').textContent") == "Item q12"
        assert tab.errors == []
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)


def test_review_keys_skip_go_back_and_show_their_sheet(runs, browser):
    """Issue 57: keys to skip a verdict (no label), go back to the previous one (a new
    answer replaces its label) and show the help sheet (``?``)."""
    proc, url = start_view(runs)
    try:
        tab = browser.tab()
        tab.open(url + "#/review/k3.jsonl?annotator=tester")
        tab.ready("/review/k3.jsonl")
        progress = "document.getElementById('progress').textContent"
        key = "document.getElementById('card').dataset.key"
        press = "document.dispatchEvent(new KeyboardEvent('keydown', {{key: {!r}}}))"
        first = tab.js(key)
        tab.js(press.format("s"))
        tab.wait(f"{progress}.startsWith('1 of 30')")
        assert tab.js(key) != first and LabelStore(runs).labels() == []  # skipped: no label
        second = tab.js(key)
        tab.js(press.format("k"))
        tab.wait(f"{progress}.startsWith('0 of 30')")
        assert tab.js(key) == first
        tab.js(press.format("ArrowRight"))
        tab.wait(f"{progress}.startsWith('1 of 30')")
        assert tab.js(key) == second
        assert tab.js("document.getElementById('help').hidden") is True
        tab.js(press.format("?"))
        sheet = tab.js(
            "document.getElementById('help').hidden ? '' : document.getElementById('help').innerText"
        )
        assert "skip this verdict" in sheet and "back to the previous verdict" in sheet
        tab.js("document.getElementById('unsure').click()")
        tab.wait(f"{progress}.startsWith('2 of 30')")
        assert "(1 labelled here)" in tab.js(progress)
        assert [x.key for x in LabelStore(runs).labels()] == [second]
        assert tab.errors == []
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
