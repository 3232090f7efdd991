"""Pages in headless Chromium: many runs filtered, sorted and paged with the choices in the
address; a run's items filtered by metadata; the items that moved between two runs; a
synthesized set reviewed from the keyboard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import evals.quickstart as quickstart

from ._browser import needs_browser, shot, viewing

pytestmark = [pytest.mark.slow, needs_browser]

ROWS = "document.querySelectorAll('#runs tbody tr').length"


def copies(folder: Path, count: int) -> None:
    """``count`` model-free runs (two retriever settings, a commit each, a day apart)."""
    bases = []
    for k in (1, 3):
        path = folder / f"free{k}.jsonl"
        quickstart.run(None, k=k, results_path=path, progress="none")
        bases.append(path.read_text().splitlines(keepends=True))
        path.unlink()
    for i in range(count):
        lines = bases[i % 2]
        header = json.loads(lines[0])
        header["run"]["created"] = f"2026-{1 + i // 28:02d}-{1 + i % 28:02d}T12:00:00+00:00"
        header["run"]["git_commit"] = f"{i:04d}abcdef"
        (folder / f"free{i:03d}.jsonl").write_text(json.dumps(header) + "\n" + "".join(lines[1:]))


def choose(tab, control: str, value: str, event: str = "change") -> None:
    """Set a control of the page as a person does, and let the page hear of it."""
    tab.js(
        f"{{ const c = document.getElementById({control!r}); c.value = {value!r};"
        f" c.dispatchEvent(new Event({event!r})); }}"
    )


def test_runs_are_filtered_sorted_paged_and_the_choices_are_in_the_address(runs, browser):
    copies(runs, 160)
    with viewing(runs) as url:
        tab = browser.tab()
        tab.open(url)
        tab.ready("/")
        tab.wait(f"{ROWS} === 100 && document.querySelector('h1').textContent === '163 runs'")
        assert "63 not shown" in tab.js("document.getElementById('more-runs').textContent")
        shot(tab, "view-runs")
        newest = tab.js("document.querySelector('#runs tbody tr').dataset.run")
        assert newest == "k3.jsonl"  # made today, after every copy's date
        ticks = tab.js(
            "[...document.querySelectorAll('#trends svg .tick.y')].map(t => t.textContent)"
        )
        assert ticks[:3] == ["0", "0.5", "1"]
        dates = tab.js(
            "[...document.querySelectorAll('#trends svg .tick.x')].map(t => t.textContent)"
        )
        assert dates[0] == "2026-01-01" and len(dates) % 2 == 0
        chart = "#trends svg[data-scorer='mrr']"  # 162 runs: one path of points, a tip on hover
        assert tab.js(f"document.querySelectorAll({chart + ' circle'!r}).length") == 0
        tab.js(
            f"{{ const svg = document.querySelector({chart!r}); const r = svg.getBoundingClientRect();"
            " svg.dispatchEvent(new MouseEvent('mousemove', {clientX: r.right - 14, clientY: r.top + 50})); }"
        )
        tip = tab.js(f"document.querySelector({chart + ' .tip'!r}).textContent")
        assert tip.startswith("k") and "mean " in tip and "[" in tip, tip  # the newest runs

        tab.js("document.getElementById('more-runs').click()")
        tab.wait(f"{ROWS} === 163")

        choose(tab, "run-judge", "openai/fake-judge", "change")
        tab.wait(f"{ROWS} === 3")
        assert "judge=openai%2Ffake-judge" in tab.js("location.hash")
        choose(tab, "run-judge", "", "change")
        choose(tab, "run-search", "0042abc", "input")
        tab.wait(f"{ROWS} === 1")
        assert tab.js("document.querySelector('#runs tbody tr').dataset.run") == "free042.jsonl"
        choose(tab, "run-search", "free", "input")
        tab.wait(f"{ROWS} === 100")
        choose(tab, "run-scorer", "context-recall", "change")
        tab.wait(f"{ROWS} === 0")  # the copies have no judge, so no context-recall
        choose(tab, "run-scorer", "", "change")
        choose(tab, "run-sort", "mean:mrr:asc", "change")
        tab.wait(f"{ROWS} === 100")
        shown = tab.js(
            "[...document.querySelectorAll('#runs tbody tr')].map(r => r.textContent.match(/mrr ([0-9.]+)/)[1])"
        )
        assert [float(x) for x in shown] == sorted(float(x) for x in shown)
        assert float(shown[0]) < float(shown[-1])
        address = tab.js("location.hash")
        assert "q=free" in address and "sort=mean%3Amrr" in address and "order=asc" in address

        again = browser.tab()  # the address alone gives the same view
        again.open(url + address)
        again.ready("/")
        again.wait(f"{ROWS} === 100")
        assert again.js("document.getElementById('run-search').value") == "free"
        assert again.js("document.getElementById('run-sort').value") == "mean:mrr:asc"
        assert tab.errors == [] and again.errors == []


def test_a_runs_items_filter_by_metadata_and_one_opens_inside_the_window(runs, browser):
    with viewing(runs) as url:
        tab = browser.tab()
        tab.call("Emulation.setDeviceMetricsOverride", width=1280, height=900,
                 deviceScaleFactor=1, mobile=False)  # fmt: skip
        tab.open(url + "#/run/k2.jsonl")
        tab.ready("/run/k2.jsonl")
        tab.wait("document.querySelectorAll('#item-meta-key option').length > 1")
        items = "document.querySelectorAll('#items tr.item').length"
        assert tab.js(items) == 28
        choose(tab, "item-meta-key", "topic")
        assert tab.js("[...document.querySelectorAll('#item-meta-pick option')].map(o => o.value)") == [
            "", "biology", "computing", "geography", "history", "science history"
        ]  # fmt: skip
        choose(tab, "item-meta-pick", "computing")
        tab.wait(f"{items} === 3")
        tab.js("document.querySelector('#items tr.item').click()")
        tab.wait("!!document.querySelector('#item-detail h2')")
        top, bottom = tab.js(
            "(() => { const r = document.getElementById('item-detail').getBoundingClientRect();"
            " return [r.top, r.top + 200]; })()"
        )
        assert -1 <= top and bottom <= 900  # it opens where the person looks
        shot(tab, "view-run")
        assert tab.errors == []


def test_compare_shows_the_items_that_moved_side_by_side_and_its_verdict_is_in_the_address(
    runs, browser
):
    with viewing(runs) as url:
        tab = browser.tab()
        tab.open(url + "#/compare?path=k1.jsonl&path=k3.jsonl&max_drop=mrr%3D0.01")
        tab.ready("/compare")
        tab.wait("document.querySelectorAll('#moved tr.moved').length > 0")
        assert "verdict=" in tab.js("location.hash")
        verdict = tab.js("document.getElementById('verdict').className")
        assert tab.js("location.hash").split("verdict=")[1].split("&")[0] in verdict
        choose(tab, "moved-scorer", "id-context-precision")
        tab.wait("location.hash.includes('scorer=id-context-precision')")
        rows = tab.js("document.querySelectorAll('#moved tr.moved').length")
        first = tab.js("document.querySelector('#moved tr.moved')")
        assert first is not None
        cells = tab.js(
            "[...document.querySelector('#moved tr.moved').children].map(c => c.className)"
        )
        assert cells[2:] == ["side", "side"]  # baseline and candidate side by side
        assert (
            tab.js(
                "document.querySelectorAll('#moved tr.moved td.side')[1].querySelectorAll('.chunks li').length"
            )
            == 3
        )
        shot(tab, "view-compare")
        option = tab.js(
            "[...document.querySelectorAll('#moved-slice option')].find(o => o.text === 'topic = computing').value"
        )
        choose(tab, "moved-slice", option)
        tab.wait(f"document.querySelectorAll('#moved tr.moved').length < {rows}")
        assert "slice=" in tab.js("location.hash")
        assert tab.errors == []


def test_a_synthesized_set_shows_its_gold_passages_and_is_reviewed_from_the_keyboard(runs, browser):
    with viewing(runs) as url:
        tab = browser.tab()
        tab.open(url + "#/data_set/synth%2Flabelled.jsonl")
        tab.ready("/data_set/synth/labelled.jsonl")
        rows = tab.js("document.querySelectorAll('#rows tbody tr').length")
        assert rows >= 3
        passage = tab.js("document.querySelector('#rows tbody tr .passage').textContent")
        assert len(passage) > 40
        fits = tab.js(
            "[...document.querySelectorAll('#rows textarea')].every(t => t.scrollHeight <= t.clientHeight + 4)"
        )
        assert fits  # every editor shows its whole text
        shot(tab, "view-synth")
        key = "document.dispatchEvent(new KeyboardEvent('keydown', {key: %r}))"
        tab.js(key % "a")  # accept the first; the second is next
        tab.wait("document.querySelectorAll('#rows tr.row-accept').length === 1")
        tab.wait("document.querySelectorAll('#rows tbody tr')[1].classList.contains('current')")
        tab.js(key % "r")
        tab.wait("document.querySelectorAll('#rows tr.row-reject').length === 1")
        tab.js(key % "k")
        tab.js(key % "k")
        assert tab.js(
            "document.querySelectorAll('#rows tbody tr')[0].classList.contains('current')"
        )
        tab.js(key % "e")
        assert tab.js("document.activeElement.className") == "question"
        tab.js("document.activeElement.value = 'Edited by keyboard?'")
        tab.js(
            "document.activeElement.dispatchEvent(new KeyboardEvent('keydown', "
            "{key: 'Enter', ctrlKey: true, bubbles: true}))"
        )
        tab.wait("document.querySelectorAll('#rows tbody tr')[1].classList.contains('current')")
        assert tab.errors == []
    from evals import LabelStore

    reviews = LabelStore(runs).reviews("synth/labelled.jsonl")
    decisions = sorted(r.decision for r in reviews.values())
    assert decisions == ["accept", "reject"]
    assert any(r.row["input"] == "Edited by keyboard?" for r in reviews.values())
