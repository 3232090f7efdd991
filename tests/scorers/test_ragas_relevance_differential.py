"""The facade's ContextRelevance and ContextEntityRecall against Ragas 0.4.3's own values.

data/ragas043_relevance.json holds what Ragas 0.4.3 computed on seeded samples, the
judge's faults on cue (an unreadable first or second relevance rating, repeated entities,
an unreadable entity list) and the edge samples (no chunks, a blank question or reference,
whitespace chunks, a context equal to or inside the question) — through ``evaluate`` and
``single_turn_ascore`` with the legacy metrics and ``ascore`` of the ``collections`` ones —
its judge answered by the same rule as the facade's
(benchmarks/differential/ragas_relevance_diff.py regenerates it beside Ragas).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "differential"))
from ragas_relevance_cases import both_judges  # noqa: E402
from ragas_relevance_diff import differences, facade_values  # noqa: E402

from evals.testing import FakeLLMServer  # noqa: E402

STORED = json.loads((Path(__file__).parent / "data" / "ragas043_relevance.json").read_text())


@pytest.mark.slow
def test_every_value_equals_ragas_0_4_3():
    chosen = {k: list(v) for k, v in STORED["collections"].items()}
    with FakeLLMServer(both_judges) as server:
        ours = facade_values(server.judge(), STORED["rows"], chosen)
    assert STORED["ragas"] == "0.4.3" and len(STORED["rows"]) >= 100
    assert differences(ours, STORED["values"]) == []


def test_the_fixture_holds_ragas_quirks():
    rows, values = STORED["rows"], STORED["values"]
    legacy = values["evaluate"]["nv_context_relevance"]
    modern = values["collections"]["context_relevance"]
    first = next(i for i, r in enumerate(rows) if r["user_input"].endswith("garbleone?"))
    second = next(i for i, r in enumerate(rows) if r["user_input"].endswith("garbletwo?"))
    assert legacy[first] is None and modern[first] is not None  # max(nan, x) is nan
    assert legacy[second] is not None
    twice = next(i for i, r in enumerate(rows) if r["reference"].startswith("Twice"))
    entity_legacy = values["evaluate"]["context_entity_recall"][twice]
    entity_modern = values["collections"]["context_entity_recall"][twice]
    assert entity_legacy < entity_modern  # repeats counted in the legacy denominator
    blank = next(i for i, r in enumerate(rows) if r["user_input"] == "")
    assert legacy[blank] == 0.0 and modern[blank] is None  # refused by Ragas 0.4 (not asked)
