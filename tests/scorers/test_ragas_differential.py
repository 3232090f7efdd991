"""The Ragas facade against Ragas 0.4.3's own values, sample for sample.

tests/scorers/data/ragas043.json holds what Ragas 0.4.3's ``evaluate`` computed with
its legacy metrics, built without llm= and given evaluate()'s, on seeded samples (seeds 0
and 47) and on the edge samples a user hits (no retrieval, a blank, whitespace-only or
tab reference or response, empty and whitespace chunks, an empty reference context, no
ids, repeated and integer ids), its judge answered by the same rule as ours (benchmarks/differential/
ragas_diff.py regenerates it, running Ragas in its own environment).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "differential"))
from ragas_cases import both_judges  # noqa: E402
from ragas_diff import deliberate, differences, facade_scores  # noqa: E402

from evals.testing import FakeLLMServer  # noqa: E402

STORED = json.loads((Path(__file__).parent / "data" / "ragas043.json").read_text())


@pytest.mark.slow
def test_every_value_equals_ragas_0_4_3():
    with FakeLLMServer(both_judges) as server:
        ours = facade_scores(server.judge(), STORED["rows"])
    assert STORED["ragas"] == "0.4.3"
    assert differences(ours, STORED["scores"], STORED["rows"]) == []
    blank = [
        (name, i)
        for name in (
            "llm_context_precision_with_reference",
            "llm_context_precision_without_reference",
        )
        for i, r in enumerate(STORED["rows"])
        if deliberate(name, r, ours[name][i])
    ]
    assert len(blank) == 5  # the deliberate difference: NaN with a reason, no question asked
    assert sum(len(v) for v in STORED["scores"].values()) == 693


def test_an_empty_retrieval_does_not_raise_the_mean():
    """Before: the facade raised on an empty retrieval, evaluate() dropped the sample as
    NaN, and the mean went up; Ragas scores it 0."""
    rows = STORED["rows"]
    empty = next(i for i, r in enumerate(rows) if r["retrieved_contexts"] == [] and r["reference"])
    for name in ("context_recall", "llm_context_precision_with_reference"):
        assert STORED["scores"][name][empty] == 0.0
    with FakeLLMServer(both_judges) as server:
        ours = facade_scores(server.judge(), [rows[empty]])
    assert ours["context_recall"] == [0.0]  # before: None, the sample dropped as NaN
