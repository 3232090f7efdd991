"""Two people label the same verdicts in headless Chromium: one with notes, one blind;
their names, notes and blind flags are stored and exported, and their agreement with each
other is shown beside the judge's."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request

import pytest

from evals import LabelStore

from ._browser import needs_browser, shot, viewing

pytestmark = [pytest.mark.slow, needs_browser]

PROGRESS = "document.getElementById('progress').textContent"


def label(tab, k: int, *, blind: bool) -> str:
    """Answer the ``k``-th verdict on screen (yes, or high for a graded one); its key."""
    tab.wait(f"{PROGRESS}.startsWith('{k} of')")
    key = tab.js("document.getElementById('card').dataset.key")
    graded = tab.js("!!document.getElementById('level-high')")
    if blind:
        assert tab.js("!!document.getElementById('judge-hidden')")
        assert not tab.js("!!document.getElementById('judge-said')")
        tab.js(f"document.getElementById({'level-high' if graded else 'yes'!r}).click()")
        tab.wait("!!document.getElementById('revealed')")
        assert "null" not in tab.js("document.getElementById('card').innerText")
        assert tab.js("!!document.getElementById('judge-said')")  # shown once answered
        if k == 0:
            shot(tab, "view-review-blind")
        tab.js("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}))")
    else:
        assert tab.js("!!document.getElementById('judge-said')")
        assert "null" not in tab.js("document.getElementById('card').innerText")
        tab.js(f"document.getElementById('note').value = 'note {k}'")
        tab.js(f"document.getElementById({'level-high' if graded else 'agree'!r}).click()")
    return key


def test_two_annotators_a_note_and_a_blind_label_are_stored_shown_and_exported(runs, browser):
    with viewing(runs) as url:
        alice = browser.tab()
        alice.open(url + "#/review/k3.jsonl")
        alice.ready("/review/k3.jsonl")
        alice.js("document.getElementById('annotator').value = 'alice'")
        alice.js("document.getElementById('start').click()")
        alice.wait("document.getElementById('who').textContent === 'alice'")
        by_alice = [label(alice, k, blind=False) for k in range(6)]
        alice.wait(f"{PROGRESS}.startsWith('6 of')")

        bob = browser.tab()
        bob.open(url + "#/review/k3.jsonl?annotator=bob&blind=1")
        bob.ready("/review/k3.jsonl")
        assert bob.js("document.getElementById('blind').checked")
        by_bob = [label(bob, k, blind=True) for k in range(6)]
        bob.wait(f"{PROGRESS}.startsWith('6 of')")
        assert by_bob == by_alice  # the same sample: bob is not shown only what alice left
        assert bob.wait("document.getElementById('people').textContent.includes('alice and bob')")

        bob.open(url + "#/run/k3.jsonl")
        bob.ready("/run/k3.jsonl")
        people = bob.js("document.getElementById('people').textContent")
        assert "alice and bob" in people and "questions both decided" in people
        token = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["token"][0]
        scorer = bob.js("document.querySelector('#agreement li').textContent.split(' ')[0]")
        assert alice.errors == [] and bob.errors == []

    stored = LabelStore(runs).labels()
    assert sorted(x.annotator for x in stored) == ["alice"] * 6 + ["bob"] * 6
    assert {x.note for x in stored if x.annotator == "alice"} == {f"note {k}" for k in range(6)}
    assert all(x.blind for x in stored if x.annotator == "bob")
    assert not any(x.blind for x in stored if x.annotator == "alice")

    with viewing(runs) as url:
        origin = url.split("/?")[0].split("#")[0].rstrip("/")
        token = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["token"][0]
        with urllib.request.urlopen(f"{origin}/export?scorer={scorer}&token={token}") as r:
            rows = [json.loads(line) for line in r.read().decode().splitlines()]
    assert {r["annotator"] for r in rows} == {"alice", "bob"}
    assert all(r["note"].startswith("note ") for r in rows if r["annotator"] == "alice")
    assert all(r.get("blind") is True for r in rows if r["annotator"] == "bob")
