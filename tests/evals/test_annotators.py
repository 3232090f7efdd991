"""Several people labelling one verdict: their names and notes kept, a question counted
once against the judge (the people's majority), agreement between people, the export,
and a labels database of the first version upgraded in place."""

from __future__ import annotations

import json
import random
import sqlite3

import numpy as np
import pytest

from evals import JudgeVerdict, LabelStore, calibrate, people_agreements
from evals._agreement._agreement import agreement_of
from evals._judged import SPLIT, Label, people_label
from scorers import ConfigError


def verdict(k: int, supported: bool = True, kind: str = "claim") -> JudgeVerdict:
    return JudgeVerdict(
        scorer_id="context-relevance" if kind == "relevance" else "context-recall",
        kind=kind,
        judge_model="openai/fake-judge",
        prompt_version="1",
        text=f"claim {k}",
        context=[f"chunk {k}"] if kind == "claim" else [],
        supported=supported,
        grade=(3 if supported else 0) if kind == "relevance" else None,
    )


def test_each_person_keeps_their_own_label_and_note_on_one_verdict(tmp_path):
    store = LabelStore(tmp_path)
    store.save(verdict(1), True, annotator="alice", note="clear")
    store.save(verdict(1), False, annotator=" bob ", blind=True)
    store.save(verdict(1), False, annotator="alice", note="second look")  # replaces alice's
    found = {x.annotator: x for x in store.labels()}
    assert set(found) == {"alice", "bob"}
    assert (found["alice"].label, found["alice"].note, found["alice"].blind) == (
        False,
        "second look",
        False,
    )
    assert (found["bob"].label, found["bob"].note, found["bob"].blind) == (False, "", True)
    assert store.keys() == {verdict(1).key} and store.keys("carol") == set()
    assert store.keys("bob") == {verdict(1).key} and store.annotators() == {"alice": 1, "bob": 1}
    with pytest.raises(ConfigError, match="at most 100 characters"):
        store.save(verdict(2), True, annotator="x" * 101)
    with pytest.raises(ConfigError, match="at most 4000 characters"):
        store.save(verdict(2), True, note="x" * 4001)


def person(label, who):
    return Label(key="k", verdict=verdict(0), label=label, updated="", annotator=who)


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ([True], True),
        ([None], None),
        ([None, None], None),
        ([True, None], True),
        ([True, False], SPLIT),
        ([True, False, False], False),
        ([True, True, False, False], SPLIT),
        ([3, 3, 2], 3),
        ([0, 1, 2], SPLIT),
    ],
)
def test_the_people_label_of_a_question_is_a_strict_majority_of_those_who_decided(labels, expected):
    assert people_label([person(x, str(i)) for i, x in enumerate(labels)]) == expected


def test_a_question_several_people_labelled_counts_once_against_the_judge(tmp_path):
    store = LabelStore(tmp_path)
    said = {}
    for k in range(12):
        v = verdict(k, supported=k % 2 == 0)
        said[v.key] = v.supported
        store.save(v, v.supported, annotator="alice")
        if k < 4:
            store.save(v, v.supported, annotator="bob")  # agrees with alice: one question
    split = verdict(12, supported=True)
    said[split.key] = True
    store.save(split, True, annotator="alice")
    store.save(split, False, annotator="bob")
    nobody = verdict(13)
    said[nobody.key] = True
    store.save(nobody, None, annotator="alice")
    found = agreement_of(store, "context-recall", "openai/fake-judge", "1", said)
    assert (found.n, found.split, found.undecided) == (12, 1, 1)
    assert found.accuracy == 1.0 and found.kappa == 1.0
    assert "1 split between people" in found.line()
    assert len(store.calibration_rows("context-recall")) == 12  # one row per agreed question
    rows = store.calibration_rows("context-recall", each=True)
    assert len(rows) == 18  # every decided label of each person
    assert {
        "claim": "claim 12",
        "context": ["chunk 12"],
        "label": "not_supported",
        "annotator": "bob",
    } in rows


@pytest.mark.parametrize("seed", range(6))
def test_agreement_between_people_equals_statsmodels(tmp_path, seed):
    from statsmodels.stats.inter_rater import cohens_kappa

    rng = random.Random(seed)
    store = LabelStore(tmp_path)
    table = np.zeros((2, 2))
    n = rng.randrange(15, 60)
    for k in range(n):
        first = rng.random() < 0.5
        second = first if rng.random() < 0.7 else rng.random() < 0.5
        store.save(verdict(k), first, annotator="ann")
        store.save(verdict(k), second, annotator="ben")
        table[int(first), int(second)] += 1
    store.save(verdict(n), None, annotator="ann")  # undecided: not counted
    store.save(verdict(n), True, annotator="ben")
    store.save(verdict(n + 1), True, annotator="ann")  # ann's alone: not shared
    (found,) = people_agreements(tmp_path)
    assert (found.first, found.second, found.n) == ("ann", "ben", n)
    assert found.kappa == pytest.approx(cohens_kappa(table).kappa, abs=1e-12)
    assert found.accuracy == pytest.approx(np.trace(table) / n, abs=1e-12)
    assert found.kappa_ci[0] <= found.kappa <= found.kappa_ci[1]
    assert "ann and ben: κ " in found.line()


def test_graded_labels_between_people_use_quadratic_weights(tmp_path):
    from statsmodels.stats.inter_rater import cohens_kappa

    rng = random.Random(3)
    first = [rng.randrange(4) for _ in range(40)]
    second = [min(3, max(0, g + rng.choice((-1, 0, 0, 1)))) for g in first]
    store = LabelStore(tmp_path)
    for k, (a, b) in enumerate(zip(first, second, strict=True)):
        store.save(verdict(k, kind="relevance"), a, annotator="a")
        store.save(verdict(k, kind="relevance"), b, annotator="b")
    (found,) = people_agreements(store, ["context-relevance"])
    assert found.graded and found.n == 40
    table = np.zeros((4, 4))
    for a, b in zip(first, second, strict=True):
        table[a, b] += 1
    assert found.kappa == pytest.approx(cohens_kappa(table, wt="quadratic").kappa, abs=1e-12)
    assert people_agreements(store, ["context-recall"]) == []


FIRST_VERSION = """
CREATE TABLE labels (key TEXT PRIMARY KEY, scorer_id TEXT NOT NULL, kind TEXT NOT NULL,
    judge_model TEXT NOT NULL, prompt_version TEXT NOT NULL, verdict TEXT NOT NULL,
    label INTEGER, updated TEXT NOT NULL);
CREATE INDEX labels_judge ON labels (scorer_id, judge_model, prompt_version);
CREATE TABLE row_reviews (data_set TEXT NOT NULL, row_id TEXT NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('accept', 'reject')), row TEXT NOT NULL,
    updated TEXT NOT NULL, PRIMARY KEY (data_set, row_id));
CREATE TABLE written (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
"""


@pytest.mark.parametrize("marked", [True, False])
def test_a_first_version_labels_database_is_upgraded_with_its_labels(tmp_path, marked):
    path = tmp_path / "scorekit-labels.sqlite"
    db = sqlite3.connect(path)
    db.executescript(FIRST_VERSION)
    if marked:
        db.execute("PRAGMA application_id = 1936419192")
    v = verdict(1)
    db.execute(
        "INSERT INTO labels VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            v.key,
            v.scorer_id,
            v.kind,
            v.judge_model,
            v.prompt_version,
            v.model_dump_json(),
            0,
            "2026-01-01",
        ),
    )
    db.commit()
    db.close()
    store = LabelStore(tmp_path)
    (old,) = store.labels()
    assert (old.key, old.label, old.annotator, old.note, old.updated) == (
        v.key,
        False,
        "",
        "",
        "2026-01-01",
    )
    store.save(v, True, annotator="alice", note="new")
    assert {(x.annotator, x.label) for x in store.labels()} == {("", False), ("alice", True)}


def test_exported_rows_with_annotators_and_notes_calibrate(tmp_path):
    from evals.testing import FakeLLMServer
    from scorers import create_context_recall_scorer

    store = LabelStore(tmp_path)
    for k in range(4):
        store.save(verdict(k), k % 2 == 0, annotator="alice", note=f"note {k}")
    rows = store.calibration_rows("context-recall", each=True)
    assert all(r["annotator"] == "alice" and r["note"].startswith("note") for r in rows)
    exported = tmp_path / "labels.jsonl"
    exported.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with FakeLLMServer() as server:
        found = calibrate(create_context_recall_scorer(server.judge()), exported)
    assert found.n == 4
