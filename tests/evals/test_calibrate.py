"""calibrate: a judge with known mistakes gives known accuracy and κ, exactly."""

from __future__ import annotations

import json

import pytest

from evals import calibrate, calibration_table
from evals.cli import main
from evals.testing import FakeLLMServer
from scorers import DatasetError, create_context_precision_scorer, create_context_recall_scorer
from tests.conftest import SHARED_DATA

CONTEXT = [
    "Einstein was born in Ulm in 1879.",
    "Curie won two Nobel Prizes.",
    "Paris is in France.",
]
# the rule-based judge supports a claim when a chunk holds >= 60% of its content words
SUPPORTED = ["Einstein was born in Ulm.", "Curie won two Nobel Prizes.", "Paris is in France."]
UNSUPPORTED = ["Newton wrote poems daily.", "Tokyo hosts the Olympics yearly.", "Bees speak Latin."]
ROWS = [
    {"claim": SUPPORTED[0], "context": CONTEXT, "label": "supported"},  # TP
    {"claim": SUPPORTED[1], "context": CONTEXT, "label": "supported"},  # TP
    {"claim": SUPPORTED[2], "context": CONTEXT, "label": "not_supported"},  # FP
    {"claim": UNSUPPORTED[0], "context": CONTEXT, "label": "not_supported"},  # TN
    {"claim": UNSUPPORTED[1], "context": CONTEXT, "label": "not_supported"},  # TN
    {"claim": UNSUPPORTED[2], "context": CONTEXT, "label": "supported"},  # FN
    {"claim": "Einstein was born in 1879.", "context": CONTEXT, "label": "partially_supported"},
    {"claim": "Mars has blue oceans.", "context": CONTEXT, "label": "not_supported"},  # TN
]


def test_known_mistakes_give_known_agreement():
    with FakeLLMServer() as server:
        recall = create_context_recall_scorer(server.judge())
        result = calibrate(recall, ROWS, resamples=500)
        assert server.call_count == 8  # one verdict call per row: the claim is given
        as_supported = calibrate(recall, ROWS, partial_as="supported", resamples=500)
    # partially_supported counts as not_supported: the judge's "yes" on row 7 is a FP
    assert result.confusion == {"tp": 2, "fp": 2, "fn": 1, "tn": 3}
    assert result.metrics["accuracy"] == 5 / 8
    assert result.metrics["precision"] == 0.5 and result.metrics["recall"] == 2 / 3
    assert result.metrics["f1"] == 4 / 7
    assert result.metrics["kappa"] == pytest.approx(0.25, abs=1e-15)
    assert as_supported.confusion == {"tp": 3, "fp": 1, "fn": 1, "tn": 3}
    assert as_supported.metrics["kappa"] == pytest.approx(0.5, abs=1e-15)
    low, high = result.ci["accuracy"]
    assert low <= 5 / 8 <= high
    assert [d.row for d in result.disagreements] == [3, 6, 7]
    assert result.disagreements[0].text == SUPPORTED[2] and result.disagreements[0].predicted
    table = calibration_table([result, as_supported])
    assert "kappa" in table and "0.250" in table and "0.500" in table


def test_chunk_rows_use_the_precision_verdict():
    rows = [
        {
            "input": "Where was Einstein born?",
            "ground_truth": "Einstein was born in Ulm.",
            "chunk": "Einstein was born in Ulm in 1879.",
            "label": 1,
        },
        {
            "input": "Where was Einstein born?",
            "ground_truth": "Einstein was born in Ulm.",
            "chunk": "Paris is in France.",
            "label": 1,
        },
    ]
    with FakeLLMServer() as server:
        result = calibrate(create_context_precision_scorer(server.judge()), rows, resamples=100)
    assert result.confusion == {"tp": 1, "fp": 0, "fn": 1, "tn": 0}


def test_bad_rows():
    with FakeLLMServer() as server:
        recall = create_context_recall_scorer(server.judge())
        with pytest.raises(DatasetError, match="row 1: label must be supported"):
            calibrate(recall, [{"claim": "x", "context": ["y"], "label": "maybe"}])
        with pytest.raises(DatasetError, match="row 1: expected a claim row"):
            calibrate(recall, [{"text": "x"}])


@pytest.mark.slow
def test_cli_reads_wice_and_compares_judges(tmp_path, capsys, monkeypatch):
    wice = SHARED_DATA / "wice" / "dev.jsonl"
    if not wice.exists():
        pytest.skip(f"WiCE not found at {wice} (../shared/data is absent)")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    out = tmp_path / "disagreements.jsonl"
    with FakeLLMServer() as server:
        args = ["calibrate", str(wice), "--scorer", "context-recall", "--limit", "12"]
        args += ["--model", "openai/judge-a", "--model", "openai/judge-b", "--api-base", server.url]
        assert main([*args, "--no-cache", "--disagreements", str(out), "--format", "json"]) == 0
        assert server.call_count == 24
    reports = json.loads(capsys.readouterr().out)
    assert [r["model"] for r in reports] == ["openai/judge-a", "openai/judge-b"]
    assert all(r["n"] + r["failed"] == 12 for r in reports)
    assert (tmp_path / "disagreements.0.jsonl").exists()
